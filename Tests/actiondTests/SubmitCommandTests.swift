import ActiondTestSupport
import PostgresNIO
import Foundation
import Testing

/// `actiond submit FILE|-`, run as a child process.
@Suite("actiond submit")
struct SubmitCommandTests {
    static func event(_ id: String, meeting: String = "m-1", time: String = "2026-11-22T09:30:00Z") -> String {
        #"{"id":"\#(id)","type":"meeting.cancelled","user_id":"ana","occurred_at":"\#(time)","data":{"meeting_id":"\#(meeting)"}}"#
    }

    @Test func aMixedFileReportsEachRefusedLineByNumber() async throws {
        try await TestDatabase.with { db in
            let lines = [
                Self.event("a"),                       // 1 accepted
                "",                                    // 2 blank: skipped, still counted
                #"{"id": "broken""#,                   // 3 not JSON
                Self.event("a"),                       // 4 duplicate
                Self.event("a", meeting: "m-2"),       // 5 same id, other content
                Self.event("b", time: "tomorrow"),     // 6 bad time
                "   ",                                 // 7 blank
                Self.event("c"),                       // 8 accepted
            ]
            let file = FileManager.default.temporaryDirectory.appending(path: "actiond-submit-\(UUID().uuidString).jsonl")
            try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }

            let run = try await ActiondProcess.run(["submit", file.path, "--batch-size", "3"], database: db.url)
            #expect(run.status == 1, "refusals make the exit status non-zero")
            #expect(run.standardOutput.contains("6 events: 2 accepted, 1 duplicate, 3 refused"), "\(run.standardOutput)")
            let refused = run.standardError.split(separator: "\n").filter { $0.hasPrefix("line ") }
            #expect(refused.count == 3, "\(run.standardError)")
            #expect(refused.first?.hasPrefix("line 3: refused [22P02] event: not valid JSON") == true, "\(refused)")
            #expect(refused.dropFirst().first?.hasPrefix(#"line 5: refused [23505] id: "a" was already submitted with different content"#) == true, "\(refused)")
            #expect(refused.last?.hasPrefix(#"line 6: refused [22007] occurred_at: must be an RFC 3339 date-time"#) == true, "\(refused)")
            #expect(try await db.scalar("SELECT string_agg(id, ',' ORDER BY position) FROM actiond.events", as: String.self) == "a,c")
        }
    }

    @Test func standardInputWithNothingRefusedExitsZero() async throws {
        try await TestDatabase.with { db in
            let input = (1...25).map { Self.event("in-\($0)") }.joined(separator: "\n") + "\n"
            let run = try await ActiondProcess.run(["submit", "-", "--batch-size", "10"], database: db.url, input: input)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("25 events: 25 accepted, 0 duplicate, 0 refused"))
            let again = try await ActiondProcess.run(["submit", "-"], database: db.url, input: input)
            #expect(again.status == 0)
            #expect(again.standardOutput.contains("25 events: 0 accepted, 25 duplicate, 0 refused"), "submitting a file twice stores nothing new")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == 25)
        }
    }
}

import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Foundation
import Testing

/// `actiond submit FILE|-`, run as a child process.
@Suite("actiond submit")
struct SubmitCommandTests {
    static func event(_ id: String, meeting: String = "m-1", time: String = "2026-11-22T09:30:00Z") -> String {
        EventLine.json(id, "meeting.cancelled", at: time, data: #"{"meeting_id":"\#(meeting)"}"#)
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
            #expect(refused.first?.hasPrefix("line 3: refused [\(SQLState.invalidTextRepresentation)] event: not valid JSON") == true, "\(refused)")
            #expect(refused.dropFirst().first?.hasPrefix("line 5: refused [\(SQLState.uniqueViolation)] id: was already submitted for this user_id with different content") == true, "\(refused)")
            #expect(refused.last?.hasPrefix(#"line 6: refused [\#(SQLState.invalidDatetimeFormat)] occurred_at: must be an RFC 3339 date-time"#) == true, "\(refused)")
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

    /// Every identifier and text field has a cap (Schema/functions/event_problems.sql): at the
    /// cap, in four-byte characters, an event is accepted and processed; one character (or
    /// byte) over, its line is refused with 22023 naming the field, and the rest accepted.
    @Test func everyFieldAtItsCapIsAcceptedAndProcessedAndOneOverIsRefused() async throws {
        func chars(_ count: Int, _ first: String = "x") -> String { first + String(repeating: "\u{1F600}", count: count - 1) }
        let user = chars(200, "u"), meeting = chars(200, "m"), request = chars(200, "r"), message = chars(200, "q")
        func sentInvitation(_ id: String, request: String, meeting: String, user: String) -> String {
            EventLine.json(id, "notification.sent", user: user,
                           data: #"{"request_id":"\#(request)","payload":{"aps":{"category":"MEETING_INVITATION","alert":{"title":"Sync"}},"MEETING_ID":"\#(meeting)"}}"#)
        }
        let atCap = [
            sentInvitation(chars(128, "a"), request: request, meeting: meeting, user: user),
            EventLine.json("at-2", "notification.response", user: user, data: #"{"request_id":"\#(request)","action":"\#(chars(200, "A"))","locked":false}"#),
            EventLine.json("at-3", "notification.sent", user: user,
                           data: #"{"request_id":"\#(message)","payload":{"aps":{"category":"MESSAGE","alert":{"title":"Hi"}},"THREAD_ID":"\#(chars(200, "t"))","MESSAGE_ID":"\#(chars(200, "i"))"}}"#),
            EventLine.json("at-4", "notification.response", user: user, data: #"{"request_id":"\#(message)","action":"REPLY_ACTION","locked":false,"text":"\#(chars(4096, "T"))"}"#),
            EventLine.json("at-5", "meeting.cancelled", user: user, data: #"{"meeting_id":"\#(meeting)"}"#),
        ]
        let overCap: [(String, String)] = [
            (EventLine.json("over-1", "meeting.cancelled", user: chars(201, "u"), data: #"{"meeting_id":"m"}"#), "user_id: must be at most 200 characters, got 201"),
            (sentInvitation("over-2", request: chars(201, "r"), meeting: "m", user: "ana"), "data.request_id: must be at most 200 characters, got 201"),
            (EventLine.json("over-3", "notification.response", data: #"{"request_id":"r","action":"\#(chars(201, "A"))","locked":false}"#), "data.action: must be at most 200 characters, got 201"),
            (EventLine.json("over-4", "meeting.cancelled", data: #"{"meeting_id":"\#(chars(201, "m"))"}"#), "data.meeting_id: must be at most 200 characters, got 201"),
            (EventLine.json("over-5", "notification.response", data: #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"\#(chars(4097, "T"))"}"#), "data.text: must be at most 4096 characters, got 4097"),
            (sentInvitation("over-6", request: "r6", meeting: chars(201, "m"), user: "ana"), "data.payload.MEETING_ID: must be at most 200 characters, got 201"),
            (EventLine.json("over-7", "meeting.cancelled", data: #"{"meeting_id":"m","note":"\#(String(repeating: "n", count: 32_760))"}"#), "data: must be at most 32768 bytes of UTF-8 JSON, got "),
        ]
        // Refused lines between accepted ones: lines 2, 4, 6, … of the file.
        var lines: [String] = []
        for index in 0..<max(atCap.count, overCap.count) {
            if index < atCap.count { lines.append(atCap[index]) }
            if index < overCap.count { lines.append(overCap[index].0) }
        }
        try await TestDatabase.with { db in
            let file = FileManager.default.temporaryDirectory.appending(path: "actiond-caps-\(UUID().uuidString).jsonl")
            try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }

            // In clear (--no-seal): the caps on the text itself are the clear path's (text sealed
            // by the producer is judged by the workers: invalid_text).
            let run = try await ActiondProcess.run(["submit", file.path, "--no-seal"], database: db.url)
            #expect(run.status == 1)
            #expect(run.standardOutput.contains("\(lines.count) events: \(atCap.count) accepted, 0 duplicate, \(overCap.count) refused"), "\(run.standardOutput)")
            let refused = run.standardError.split(separator: "\n").filter { $0.hasPrefix("line ") }.map(String.init)
            #expect(refused.count == overCap.count, "\(run.standardError.prefix(2000))")
            for (line, (text, expected)) in zip(refused, overCap) {
                let number = lines.firstIndex(of: text)! + 1
                #expect(line.hasPrefix("line \(number): refused [\(SQLState.invalidParameterValue)] \(expected)"), "\(line.prefix(300))")
            }

            let work = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(work.status == 0, "\(work.standardError.suffix(2000))")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self) == atCap.count)
            let outcomes = try await db.outcomes(user: user)
            // A reply of 4,096 characters is stored, and then decided by the reply rule of
            // section 4 (at most 4,000 characters by default): rejected, not lost.
            #expect([chars(128, "a"), "at-2", "at-3", "at-4", "at-5"].map { outcomes[$0] }
                    == ["applied", "rejected:unknown_action", "applied", "rejected:invalid_text", "applied"], "\(outcomes)")
        }
    }
}

import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// Event content never reaches a log: not actiond's (submit's refusals, the workers' logs at
/// their most verbose), not PostgreSQL's (a refused `submit` written as literal SQL).
@Suite("Log privacy", .timeLimit(.minutes(3)))
struct LogPrivacyTests {
    @Test func aMarkerInAcceptedAndRefusedEventsAppearsInNoLog() async throws {
        let marker = "SECRET-\(UUID().uuidString)"
        let tag = "tag_\(UUID().uuidString.lowercased().prefix(8))"
        let payload = #"{"aps":{"category":"MESSAGE","alert":{"title":"Hi","body":"\#(marker) body"}},"THREAD_ID":"th","MESSAGE_ID":"m1"}"#
        let lines = [
            // Accepted, then applied by the workers: the reply's text and the message body.
            EventLine.json("sent", "notification.sent", data: #"{"request_id":"r1","payload":\#(payload)}"#),
            EventLine.json("reply", "notification.response", data: #"{"request_id":"r1","action":"REPLY_ACTION","locked":false,"text":"\#(marker) reply"}"#),
            // Refused, each for a rule about a field that carries the marker.
            EventLine.json("long", "notification.response", data: #"{"request_id":"r1","action":"REPLY_ACTION","locked":false,"text":"\#(marker)\#(String(repeating: "x", count: 4100))"}"#),
            EventLine.json("type", "\(marker).type", data: "{}"),
            EventLine.json("time", "meeting.cancelled", at: marker, data: #"{"meeting_id":"m"}"#),
            EventLine.json("category", "notification.sent", data: #"{"request_id":"r2","payload":{"aps":{"category":"\#(marker)"}}}"#),
            EventLine.json("user", "notification.sent", data: #"{"request_id":"r3","payload":{"aps":{"category":"GENERAL"},"USER_ID":"\#(marker)"}}"#),
            EventLine.json("reply", "notification.response", data: #"{"request_id":"r1","action":"REPLY_ACTION","locked":false,"text":"\#(marker) changed"}"#),
            #"{"id":"broken","text":"\#(marker)" oops}"#,
        ]
        try await TestDatabase.with { db in
            // In clear (--no-seal), as plain SQL submit sends it: the refusals that judge the text
            // itself. The changed reply is a duplicate: idempotency compares everything but the
            // protected fields (once sealed, the text cannot be compared).
            let submit = try await ActiondProcess.run(["submit", "-", "--no-seal"], database: db.url, input: lines.joined(separator: "\n"), logLevel: "trace")
            #expect(submit.standardOutput.contains("9 events: 2 accepted, 1 duplicate, 6 refused"), "\(submit.standardOutput)")
            let work = try await ActiondProcess.run(["work", "--drain"], database: db.url, logLevel: "trace")
            #expect(work.status == 0, "\(work.standardError)")
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'applied'", as: Int.self) == 2)
            // A producer writing its submit as literal SQL: refused, and so logged by the server.
            // The unknown field's name is a field path, which the error names: it shows that
            // this statement's error reached the log, without the marker.
            for literal in [EventLine.json("x", "bogus", user: marker, at: marker),
                            #"{"\#(tag)":1,"text":"\#(marker)"}"#, "{\(marker)"] {
                await #expect(throws: PSQLError.self) {
                    try await db.client.query(PostgresQuery(unsafeSQL: "SELECT actiond.submit('\(literal)'::jsonb)"), logger: db.logger).drain()
                }
            }
            for (name, output) in [("submit stdout", submit.standardOutput), ("submit stderr", submit.standardError),
                                   ("work stdout", work.standardOutput), ("work stderr", work.standardError)] {
                #expect(!output.contains(marker), "\(name) quotes event content")
            }
            #expect(submit.standardError.contains("line 3: refused [\(SQLState.invalidParameterValue)] data.text: must be at most 4096 characters"), "\(submit.standardError)")
            #expect(work.standardError.contains("trace") || work.standardError.contains("debug"), "the workers logged at their most verbose")
        }
        // The embedded cluster's log (a server given by DATABASE_URL keeps its log elsewhere).
        guard ProcessInfo.processInfo.environment["DATABASE_URL"]?.isEmpty ?? true else { return }
        let log = URL(fileURLWithPath: TestPaths.clusterDirectory).appending(path: "server.log")
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("ERROR:  \(tag): unknown field"), "the refused literal submit was logged")
        #expect(!text.contains(marker), "server.log quotes event content")
        let mode = try FileManager.default.attributesOfItem(atPath: log.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "server.log is its owner's only, mode \(String(mode ?? 0, radix: 8))")
    }
}

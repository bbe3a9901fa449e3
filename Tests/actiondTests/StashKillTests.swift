import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The stash survives a worker killed while it integrates: every stashed reply lands once,
/// in order.
@Suite("Stash integration under SIGKILL", .timeLimit(.minutes(5)))
struct StashKillTests {
    static let users = 300
    static let repliesPerUser = 30

    @Test func sigkillDuringIntegrationIntegratesEachStashedChangeExactlyOnce() async throws {
        try await TestDatabase.with { db in
            var locked: [String] = []
            for index in 0..<Self.users {
                let user = "u\(index)"
                locked.append(EventLine.json("\(user)-sent", "notification.sent", user: user,
                                             data: #"{"request_id":"\#(user)-r","payload":{"aps":{"category":"MESSAGE","alert":"hi"},"THREAD_ID":"th","MESSAGE_ID":"m"}}"#))
                locked.append(EventLine.json("\(user)-lock", "protected_data.unavailable", user: user, data: "{}"))
                for reply in 0..<Self.repliesPerUser {
                    locked.append(EventLine.json("\(user)-reply-\(reply)", "notification.response", user: user,
                                                 data: #"{"request_id":"\#(user)-r","action":"REPLY_ACTION","locked":true,"text":"\#(reply)"}"#))
                }
            }
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: locked.joined(separator: "\n")).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            let stashed = Self.users * Self.repliesPerUser
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == stashed)

            let unlocks = (0..<Self.users).map { EventLine.json("u\($0)-unlock", "protected_data.available", user: "u\($0)", data: "{}") }
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: unlocks.joined(separator: "\n")).status == 0)
            var killedMidway = 0
            var delays = RandomDelays("StashKillTests")
            for _ in 0..<3 {
                let before = try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self)
                if before == 0 { break }
                let worker = try ActiondProcess.start(["work", "--concurrency", "2", "--batch-size", "20"], database: db.url)
                #expect(try await eventually(every: .milliseconds(2)) {
                    try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) < before
                }, "the worker integrated some of the stash")
                try await Task.sleep(for: delays.milliseconds(in: 0...60))
                worker.send(SIGKILL)
                _ = try await worker.exit()
                if try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) > 0 { killedMidway += 1 }
            }
            #expect(killedMidway >= 1, "killed while stashed changes remained")
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)

            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 0)
            #expect(try await db.scalar("""
                SELECT count(*) FROM actiond.outcomes o JOIN actiond.events e USING (position)
                WHERE e.type = 'notification.response' AND o.outcome = 'applied'
                """, as: Int.self) == stashed)
            // Each user's replies landed once each, in the order they were given (opened with
            // their keys: sealed at rest).
            var texts: [String: [String]] = [:]
            for event in try await ProtectedTextReader.domainEvents(db, type: "reply.posted") {
                if case .replyPosted(_, let user, let text, _)? = event.event(as: MessageThreadEvent.self) { texts[user, default: []].append(text.text ?? "?") }
            }
            let expected = (0..<Self.repliesPerUser).map(String.init)
            #expect(texts.count == Self.users)
            #expect(texts.values.filter { $0 != expected }.count == 0)
            #expect(try await db.scalar("SELECT count(DISTINCT stream_user) FROM actiond.domain_events WHERE type = 'reply.posted'", as: Int.self) == Self.users)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.projections WHERE kind = 'thread' AND (state -> 'state' ->> 'replies')::int <> \(Self.repliesPerUser)", as: Int.self) == 0)
        }
    }
}

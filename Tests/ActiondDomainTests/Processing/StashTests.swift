import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import PropertyBased
import Testing

/// Protected data: replies made while it is unavailable are stashed and integrated in order
/// once it is available again; changes that need no protected data apply at once.
@Suite("Stash")
struct StashTests {
    static func threadSetup() async throws -> Simulation {
        var run = Simulation()
        try await run.sent("s1", category: "MESSAGE", request: "r1", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m1"])
        try await run.sent("s2", category: "TIMER_EXPIRED", request: "tim", keys: ["TIMER_ID": "t1"])
        return run
    }

    static func replies(_ run: Simulation) -> [String] {
        run.state.threadEvents.compactMap { if case .replyPosted(_, _, let text, _) = $0 { text.text } else { nil } }
    }

    @Test func repliesWhileUnavailableAreStashedAndIntegratedInOrder() async throws {
        var run = try await Self.threadSetup()
        try await run.run(.protectedDataUnavailable, "lock", data: "{}")
        try await run.respond("reply-1", request: "r1", action: "REPLY_ACTION", text: "first")
        try await run.respond("snooze", request: "tim", action: "SNOOZE_ACTION", locked: true)
        try await run.respond("read", request: "r1", action: "MARK_READ_ACTION")
        try await run.respond("reply-2", request: "r1", action: "REPLY_ACTION", text: "second")
        #expect(run.outcomes["reply-1"] == .stashed && run.outcomes["reply-2"] == .stashed)
        #expect(run.outcomes["snooze"] == .applied && run.outcomes["read"] == .applied, "no protected data needed: applied at once")
        #expect(Self.replies(run).isEmpty && run.state.thread("th", user: "ana")?.replies == 0, "stashed text is not in the thread")
        #expect(run.stash["ana"]?.map(\.id) == ["reply-1", "reply-2"])

        try await run.run(.protectedDataAvailable, "unlock", data: "{}")
        #expect(run.outcomes["reply-1"] == .applied && run.outcomes["reply-2"] == .applied)
        #expect(Self.replies(run) == ["first", "second"])
        #expect(run.stash["ana"]?.isEmpty ?? true)
        try await run.run(.protectedDataAvailable, "unlock-again", data: "{}")
        #expect(Self.replies(run) == ["first", "second"], "integrated once")
    }

    @Test func aStashedReplyThatNoLongerAppliesIsRejectedNotDropped() async throws {
        var run = Simulation()
        try await run.sent("s1", category: "MESSAGE", request: "r1", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m1"])
        try await run.run(.protectedDataUnavailable, "lock", data: "{}")
        // Text valid when stashed, but handlers see it again at integration: a registry that
        // no longer has a text input would reject it then. Here the category disappears.
        try await run.respond("reply", request: "r1", action: "REPLY_ACTION", text: "hi")
        run.state.categories = try CategoryRegistry(categories: Fixtures.registry.categories.filter { $0.identifier != "MESSAGE" })
        try await run.run(.protectedDataAvailable, "unlock", data: "{}")
        #expect(run.outcomes["reply"] == .rejected(.unknownAction))
    }

    @Test func oneUsersLockNeverDelaysAnother() async throws {
        var run = try await Self.threadSetup()
        try await run.sent("s3", category: "MESSAGE", request: "bob-r", user: "bob", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m9"])
        try await run.run(.protectedDataUnavailable, "lock", data: "{}")
        try await run.respond("ana-reply", request: "r1", action: "REPLY_ACTION", text: "later")
        try await run.respond("bob-reply", request: "bob-r", action: "REPLY_ACTION", user: "bob", text: "now")
        #expect(run.outcomes["ana-reply"] == .stashed && run.outcomes["bob-reply"] == .applied)
        #expect(run.state.thread("th", user: "bob")?.replies == 1)
    }

    @Test func aResponseAlwaysNamesItsUsersProtectedDataRow() throws {
        // Even when its notification is not loaded yet (it may be recorded earlier in the same
        // batch): the reply must know whether to stash. A review found replies applied while locked.
        let reply = LoggedEvent(position: 1, id: "r", type: .notificationResponse, userID: "ana", occurredAt: Fixtures.epoch,
                                data: #"{"request_id":"r1","action":"REPLY_ACTION","locked":true,"text":"hi"}"#, submittedAt: Fixtures.epoch)
        #expect(try EventRouter().streams(for: reply, in: WorkingSet(categories: Fixtures.registry)).contains(.protectedData(user: "ana")))
    }

    @Test func integrationFollowsPositionsWhenAnOlderChangeIsStashedInTheSameBatch() async throws {
        var run = try await Self.threadSetup()
        try await run.run(.protectedDataUnavailable, "lock", data: "{}")
        // An entry stashed by an earlier batch (position 6), and an older reply (position 2,
        // a held response re-queued) stashed in the batch that also unlocks.
        let reply = #"{"request_id":"r1","action":"REPLY_ACTION","locked":true,"text":"%@"}"#
        var stored = run.event(.notificationResponse, "five", user: "ana", at: 6, data: reply.replacingOccurrences(of: "%@", with: "five"))
        stored = LoggedEvent(position: 6, id: stored.id, type: stored.type, userID: "ana", occurredAt: stored.occurredAt, data: stored.data, submittedAt: stored.submittedAt)
        run.stash["ana"] = [stored]
        run.outcomes["five"] = .stashed
        let older = LoggedEvent(position: 2, id: "two", type: .notificationResponse, userID: "ana", occurredAt: Fixtures.at(2),
                                data: reply.replacingOccurrences(of: "%@", with: "two"), submittedAt: Fixtures.epoch)
        let unlock = LoggedEvent(position: 7, id: "unlock", type: .protectedDataAvailable, userID: "ana", occurredAt: Fixtures.at(7),
                                 data: "{}", submittedAt: Fixtures.epoch)
        _ = try await run.batch([older, unlock])
        #expect(Self.replies(run) == ["two", "five"])
        #expect(run.outcomes["two"] == .applied && run.outcomes["five"] == .applied)
    }

    @Test func usersWithCanonicallyEquivalentIdsKeepSeparateStashes() async throws {
        var run = Simulation()
        let composed = "jos\u{E9}", decomposed = "jose\u{301}"
        try await run.sent("s1", category: "MESSAGE", request: "a", user: composed, keys: ["THREAD_ID": "th", "MESSAGE_ID": "m1"])
        try await run.sent("s2", category: "MESSAGE", request: "b", user: decomposed, keys: ["THREAD_ID": "th", "MESSAGE_ID": "m1"])
        try await run.run(.protectedDataUnavailable, "lock", user: composed, data: "{}")
        try await run.respond("locked-reply", request: "a", action: "REPLY_ACTION", user: composed, text: "later")
        try await run.respond("free-reply", request: "b", action: "REPLY_ACTION", user: decomposed, text: "now")
        #expect(run.outcomes["locked-reply"] == .stashed && run.outcomes["free-reply"] == .applied)
    }

    /// Random interleavings of lock, unlock, replies and other responses, cut into random
    /// batches: the thread's replies are exactly the replies in submission order.
    @Test func repliesLandInSubmissionOrderWhateverTheLockPattern() async {
        let steps = zip(Gen.int(in: 0...5), Gen.int(in: 1...4)).array(of: 1...40)
        await propertyCheck(count: 150, input: steps) { steps in
            var run = Simulation()
            var events: [LoggedEvent] = []
            func add(_ type: EventType, _ data: String) {
                run.position += 1
                events.append(run.event(type, "e\(run.position)", user: "ana", at: Double(run.position), data: data))
            }
            add(.notificationSent, #"{"request_id":"r1","payload":{"aps":{"category":"MESSAGE","alert":"hi"},"THREAD_ID":"th","MESSAGE_ID":"m1"}}"#)
            add(.notificationSent, #"{"request_id":"t","payload":{"aps":{"category":"TIMER_EXPIRED","alert":"hi"},"TIMER_ID":"t1"}}"#)
            var expected: [String] = []
            for (kind, _) in steps {
                switch kind {
                case 0: add(.protectedDataUnavailable, "{}")
                case 1: add(.protectedDataAvailable, "{}")
                case 2, 3:
                    expected.append("reply \(expected.count)")
                    add(.notificationResponse, #"{"request_id":"r1","action":"REPLY_ACTION","locked":true,"text":"reply \#(expected.count - 1)"}"#)
                case 4: add(.notificationResponse, #"{"request_id":"t","action":"SNOOZE_ACTION","locked":true}"#)
                default: add(.notificationResponse, #"{"request_id":"r1","action":"MARK_READ_ACTION","locked":true}"#)
                }
            }
            add(.protectedDataAvailable, "{}")
            var start = 0
            var sizes = steps.map(\.1).makeIterator()
            while start < events.count {
                let end = min(events.count, start + (sizes.next() ?? 3))
                _ = try? await run.batch(Array(events[start..<end]))
                start = end
            }
            #expect(Self.replies(run) == expected)
            let stashEmpty = run.stash.values.allSatisfy { $0.isEmpty }
            #expect(stashEmpty)
            #expect(run.outcomes.values.allSatisfy { $0 == .applied || $0 == .rejected(.snoozeLimit) }, "\(run.outcomes)")
        }
    }
}

import ActiondDomain
import Foundation
import Testing

/// A worker keeps the states it wrote and reuses them when it reads the same row version
/// again (StateCache) instead of decoding the stored document. That is only right if every
/// state reads back from its document as exactly itself.
@Suite("State round trip")
struct StateRoundTripTests {
    @Test func everyRowReadsBackFromItsDocumentAsTheStateThatWroteIt() async throws {
        var run = Simulation()
        // Times with sub-microsecond parts, every built-in kind, stashed and integrated text.
        try await run.sent("s1", category: "MEETING_INVITATION", request: "inv", at: 0.1234567, keys: ["MEETING_ID": "m1"])
        try await run.respond("a1", request: "inv", action: "DECLINE_ACTION", at: 20.0000004)
        try await run.respond("a2", request: "inv", action: "com.apple.UNNotificationDefaultActionIdentifier", at: 5.5555555)
        try await run.sent("s2", category: "TIMER_EXPIRED", request: "tim", at: 1.0000001, keys: ["TIMER_ID": "t1"])
        try await run.respond("z1", request: "tim", action: "SNOOZE_ACTION", at: 30.3333333, locked: true)
        try await run.respond("z2", request: "tim", action: "SNOOZE_ACTION", at: 90.9999999, locked: true)
        try await run.respond("stop", request: "tim", action: "STOP_ACTION", at: 60.0000005)
        try await run.sent("s3", category: "MESSAGE", request: "msg", at: 2.7182818, keys: ["THREAD_ID": "th", "MESSAGE_ID": "m\u{301}1"])
        try await run.run(.protectedDataUnavailable, "lock", at: 3.1415926, data: "{}")
        try await run.respond("reply", request: "msg", action: "REPLY_ACTION", at: 4.0000009, text: "jos\u{e9} \u{1F600}")
        try await run.run(.protectedDataAvailable, "unlock", at: 5.0000001, data: "{}")
        try await run.respond("read", request: "msg", action: "MARK_READ_ACTION", at: 6.6666666)
        try await run.cancel("cancel", meeting: "m1", at: 7.7777777)

        let catalog = run.handler.catalog
        var kinds: Set<String> = []
        for key in run.state.loaded {
            guard let state = run.state[key] else { continue }
            let document = try catalog.document(kind: key.kind, state: state)
            #expect(try catalog.decodeState(kind: key.kind, document: document) == state, "\(key): \(document)")
            kinds.insert(key.kind)
        }
        #expect(kinds == ["notification", "protected_data", "invitation", "meeting", "timer", "thread"])
    }
}

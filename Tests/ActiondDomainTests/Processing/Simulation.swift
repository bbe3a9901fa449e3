import ActiondBuiltInHandlers
import ActiondDomain
import Foundation

/// A worker in memory: input events decided by `EventRouter` through `BatchRun`, as a
/// worker runs them, with the outcome table, held responses and the stash kept between
/// batches as the database would keep them.
struct Simulation {
    var state = WorkingSet(categories: Fixtures.registry)
    var outcomes: [String: EventOutcome] = [:]
    var held: Set<String> = []
    var stash: [ExactString: [LoggedEvent]] = [:]
    var position: Int64 = 0
    var handler = EventRouter()

    func event(_ type: EventType, _ id: String, user: String, at seconds: Double, data: String) -> LoggedEvent {
        LoggedEvent(position: position, id: id, type: type, userID: user, occurredAt: Fixtures.at(seconds), data: data, submittedAt: Fixtures.at(0))
    }

    /// Runs `events` as one batch.
    mutating func batch(_ events: [LoggedEvent], now: Date = Fixtures.at(0)) async throws -> BatchRun {
        // Rows no earlier batch wrote do not exist yet; load them as the worker would.
        for event in events + stash.values.joined() {
            for key in (try? handler.streams(for: event, in: state)) ?? [] where !state.isLoaded(key) { state.load(key, nil) }
        }
        let run = try await BatchRun.run(events, router: handler, state: state, stash: stash, retry: RetryPolicy(maxAttempts: 1), now: now)
        state = run.state
        for finished in run.finished { outcomes[finished.event.id] = finished.outcome; held.remove(finished.event.id) }
        for (key, outcome) in run.revised { outcomes[key.id.string] = outcome }
        for item in run.held { held.insert(item.event.id) }
        let integrated = Set(run.unstashed)
        for user in stash.keys { stash[user]?.removeAll { integrated.contains($0.position) } }
        for event in run.stashed { stash[ExactString(event.userID), default: []].append(event) }
        return run
    }

    @discardableResult
    mutating func run(_ type: EventType, _ id: String, user: String = "ana", at seconds: Double = 0,
                      data: String, now: Date = Fixtures.at(0)) async throws -> EventDecision {
        position += 1
        let event = event(type, id, user: user, at: seconds, data: data)
        for key in (try? handler.streams(for: event, in: state)) ?? [] where !state.isLoaded(key) { state.load(key, nil) }
        let result = try await handler.handle(event, in: state, now: now)
        let run = try await batch([event], now: now)
        if let failure = run.failures.first { throw SimulatedFailure(description: failure.error) }
        return result
    }

    struct SimulatedFailure: Error, CustomStringConvertible { var description: String }

    mutating func sent(_ id: String, category: String, request: String, user: String = "ana", at seconds: Double = 0,
                       keys: [String: String] = [:]) async throws {
        let custom = keys.map { #","\#($0.key)":"\#($0.value)""# }.sorted().joined()
        try await run(.notificationSent, id, user: user, at: seconds, data: #"""
            {"request_id":"\#(request)","payload":{"aps":{"category":"\#(category)","alert":{"title":"Hi","body":"Lunch?"}}\#(custom)}}
            """#)
    }

    @discardableResult
    mutating func respond(_ id: String, request: String, action: String, user: String = "ana", at seconds: Double = 10,
                          text: String? = nil, locked: Bool = false, now: Date = Fixtures.at(0)) async throws -> EventDecision {
        let textField = text.map { #","text":"\#($0)""# } ?? ""
        return try await run(.notificationResponse, id, user: user, at: seconds, data: #"""
            {"request_id":"\#(request)","action":"\#(action)","locked":\#(locked)\#(textField)}
            """#, now: now)
    }

    mutating func cancel(_ id: String, meeting: String, at seconds: Double = 0) async throws {
        try await run(.meetingCancelled, id, at: seconds, data: #"{"meeting_id":"\#(meeting)"}"#)
    }

    /// A run that writes every built-in kind of row and event: times with sub-microsecond
    /// parts, responses out of device order and revised, a snooze after stop, text stashed
    /// while the device was locked and integrated, and a cancelled meeting.
    static func everyBuiltInKind() async throws -> Simulation {
        var run = Simulation()
        try await run.sent("s1", category: "MEETING_INVITATION", request: "inv", at: 0.1234567, keys: ["MEETING_ID": "m/1"])
        try await run.respond("a1", request: "inv", action: "DECLINE_ACTION", at: 20.0000004)
        try await run.respond("a0", request: "inv", action: "ACCEPT_ACTION", at: 10.5)
        try await run.respond("a2", request: "inv", action: "com.apple.UNNotificationDefaultActionIdentifier", at: 5.5555555)
        try await run.respond("a3", request: "inv", action: "com.apple.UNNotificationDismissActionIdentifier", at: 6.25)
        try await run.sent("s2", category: "TIMER_EXPIRED", request: "tim", at: 1.0000001, keys: ["TIMER_ID": "t\u{e9}1"])
        try await run.respond("z1", request: "tim", action: "SNOOZE_ACTION", at: 30.3333333, locked: true)
        try await run.respond("z2", request: "tim", action: "SNOOZE_ACTION", at: 90.9999999, locked: true)
        try await run.respond("stop", request: "tim", action: "STOP_ACTION", at: 60.0000005)
        try await run.respond("z3", request: "tim", action: "SNOOZE_ACTION", at: 99)
        try await run.sent("s3", category: "MESSAGE", request: "msg", at: 2.7182818, keys: ["THREAD_ID": "th", "MESSAGE_ID": "m\u{301}1"])
        try await run.run(.protectedDataUnavailable, "lock", at: 3.1415926, data: "{}")
        try await run.respond("reply", request: "msg", action: "REPLY_ACTION", at: 4.0000009, text: "jos\u{e9} \u{1F600}")
        try await run.run(.protectedDataAvailable, "unlock", at: 5.0000001, data: "{}")
        try await run.respond("read", request: "msg", action: "MARK_READ_ACTION", at: 6.6666666)
        try await run.cancel("cancel", meeting: "m/1", at: 7.7777777)
        return run
    }
}

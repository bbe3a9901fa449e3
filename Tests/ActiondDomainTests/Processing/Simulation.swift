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
}

import ActiondDomain
import Foundation

/// A worker in memory: input events decided by `DomainHandler` one by one, their domain
/// events applied to a working set, outcomes kept as the outcome table would keep them.
struct Simulation {
    var state = WorkingSet(categories: Fixtures.registry)
    var outcomes: [String: EventOutcome] = [:]
    var held: Set<String> = []
    var position: Int64 = 0
    var handler = DomainHandler()

    @discardableResult
    mutating func run(_ type: EventType, _ id: String, user: String = "ana", at seconds: Double = 0,
                      data: String, now: Date = Fixtures.at(0)) async throws -> HandlerResult {
        position += 1
        let event = LoggedEvent(position: position, id: id, type: type, userID: user, occurredAt: Fixtures.at(seconds),
                                data: data, submittedAt: Fixtures.at(0))
        let result = try await handler.handle(event, in: state, now: now)
        state.apply(result.events, position: position)
        outcomes.merge(result.revised) { $1 }
        switch result.verdict {
        case .outcome(let outcome): outcomes[id] = outcome; held.remove(id)
        case .hold: held.insert(id)
        }
        return result
    }

    mutating func sent(_ id: String, category: String, request: String, user: String = "ana", at seconds: Double = 0,
                       keys: [String: String] = [:]) async throws {
        let custom = keys.map { #","\#($0.key)":"\#($0.value)""# }.sorted().joined()
        try await run(.notificationSent, id, user: user, at: seconds, data: #"""
            {"request_id":"\#(request)","payload":{"aps":{"category":"\#(category)","alert":{"title":"Hi","body":"Lunch?"}}\#(custom)}}
            """#)
    }

    @discardableResult
    mutating func respond(_ id: String, request: String, action: String, user: String = "ana", at seconds: Double = 10,
                          text: String? = nil, locked: Bool = false, now: Date = Fixtures.at(0)) async throws -> HandlerResult {
        let textField = text.map { #","text":"\#($0)""# } ?? ""
        return try await run(.notificationResponse, id, user: user, at: seconds, data: #"""
            {"request_id":"\#(request)","action":"\#(action)","locked":\#(locked)\#(textField)}
            """#, now: now)
    }

    mutating func cancel(_ id: String, meeting: String, at seconds: Double = 0) async throws {
        try await run(.meetingCancelled, id, at: seconds, data: #"{"meeting_id":"\#(meeting)"}"#)
    }
}

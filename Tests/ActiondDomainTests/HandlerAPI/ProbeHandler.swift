import ActiondBuiltInHandlers
@testable import ActiondDomain
import Foundation

/// A team's handler for tests: every declaration can be set, and its decision is a closure.
struct ProbeHandler: CategoryHandler {
    enum Event: HandlerEvent {
        case poked(by: String)
        case named(String)
        var name: String {
            switch self {
            case .poked: "probe.poked"
            case .named(let name): name
            }
        }
    }

    var name = "probe"
    var stateKind = "probe"
    var eventName = "probe.poked"
    var sentDecision: Decision<Event> = .applied()
    var requiredPayloadKeys = ["PROBE_ID"]
    var settings: [HandlerSetting] = []
    var reportView: ReportView?
    var sharedInputs: [EventType: String] = [:]
    var inputRequiredKeys: [EventType: [String]] = [:]
    var decide: @Sendable (CheckedResponse) throws -> Decision<Event> = { .applied(.poked(by: $0.key.userID)) }

    func stateID(for notification: SentNotification) -> String? { notification["PROBE_ID"] }
    func sent(_ notification: NewNotification, to state: Int?) -> Decision<Event> { sentDecision }
    func respond(_ response: CheckedResponse, to state: Int?, shared: Never?) throws -> Decision<Event> { try decide(response) }
    func apply(_ event: Event, to state: Int?, key: StateKey) -> Int { (state ?? 0) + 1 }
}

/// Events for a PROBE category, decided by `EventRouter` through `BatchRun` as a worker does.
struct ProbeRun {
    static let categories = #"{"categories":[{"identifier":"PROBE","handler":"probe","actions":[{"identifier":"POKE_ACTION","title":"Poke"}]}]}"#

    var handler: EventRouter
    var registry: CategoryRegistry
    var position: Int64 = 0

    init(_ probe: ProbeHandler) throws {
        let handlers = try CategoryHandlers.withBuiltIn([probe])
        handler = EventRouter(handlers: handlers)
        registry = try CategoryRegistry.parse(Data(Self.categories.utf8), handlers: handlers)
    }

    mutating func event(_ type: EventType, _ id: String, user: String, data: String) -> LoggedEvent {
        position += 1
        return LoggedEvent(position: position, id: id, type: type, userID: user, occurredAt: Fixtures.at(Double(position)), data: data, submittedAt: Fixtures.at(0))
    }

    mutating func sent(_ id: String, user: String, request: String, probe: String = "p") -> LoggedEvent {
        event(.notificationSent, id, user: user, data: #"{"request_id":"\#(request)","payload":{"aps":{"category":"PROBE"},"PROBE_ID":"\#(probe)"}}"#)
    }

    mutating func poke(_ id: String, user: String, request: String) -> LoggedEvent {
        event(.notificationResponse, id, user: user, data: #"{"request_id":"\#(request)","action":"POKE_ACTION","locked":false}"#)
    }

    func run(_ events: [LoggedEvent], registry: CategoryRegistry? = nil, attempts: Int = 3) async throws -> BatchRun {
        var state = WorkingSet(categories: registry ?? self.registry)
        // Rows start empty, as a fresh database's.
        for event in events { for key in try handler.streams(for: event, in: state) { state.load(key, nil) } }
        return try await BatchRun.run(events, router: handler, state: state, retry: RetryPolicy(maxAttempts: attempts), now: Fixtures.at(0))
    }
}

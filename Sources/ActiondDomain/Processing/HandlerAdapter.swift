import Foundation

/// A `CategoryHandler` behind one interface, whatever its state and event types: what the
/// router, the working set and rebuild use. Every handler goes through the same adapter.
package protocol AnyCategoryHandler: Sendable {
    var name: String { get }
    var requiredPayloadKeys: [String] { get }
    var settingDeclarations: [HandlerSetting] { get }
    var sharedInputs: [EventType: String] { get }
    var reportView: ReportView? { get }
    var stateKind: String { get }
    /// nil when the handler keeps no shared state.
    var sharedKind: String? { get }
    var codecs: [any StreamCodec] { get }

    func stateKey(for notification: SentNotification) -> StreamKey?
    func sharedKey(for notification: SentNotification) -> StreamKey?
    func needsProtectedData(_ action: RespondedAction) -> Bool
    func sent(_ notification: SentNotification, payload: [String: JSONValue], settings: HandlerSettings, in state: WorkingSet) throws -> [DomainEvent]
    func respond(_ action: RespondedAction, stamp: DeviceStamp, to notification: SentNotification, settings: HandlerSettings,
                 in state: WorkingSet) throws -> HandlerResult
    func handle(_ input: SharedInput, in state: WorkingSet) throws -> HandlerResult
}

struct HandlerAdapter<Handler: CategoryHandler>: AnyCategoryHandler {
    let handler: Handler
    let stateCodec: TypedStreamCodec<Handler.State, Handler.Event, Handler.Report>
    let sharedCodec: TypedStreamCodec<Handler.Shared, Handler.SharedEvent, Handler.SharedReport>?

    init(_ handler: Handler) {
        self.handler = handler
        stateCodec = TypedStreamCodec(
            kind: handler.stateKind, eventVersion: handler.eventVersion, stateVersion: handler.stateVersion,
            fold: { event, state, key in handler.apply(event, to: state, key: StateKey(id: key.id, userID: key.userID)) },
            report: { handler.report($0) },
            readEvent: { try handler.decodeEvent($0, version: $1) },
            readState: { try handler.decodeState($0, version: $1) })
        sharedCodec = Handler.Shared.self == Never.self ? nil : TypedStreamCodec(
            kind: handler.sharedKind, eventVersion: handler.eventVersion, stateVersion: handler.stateVersion,
            fold: { event, state, key in handler.applyShared(event, to: state, id: key.id) },
            report: { handler.sharedReport($0) },
            readEvent: { try handler.decodeSharedEvent($0, version: $1) },
            readState: { try handler.decodeShared($0, version: $1) })
    }

    var name: String { handler.name }
    var requiredPayloadKeys: [String] { handler.requiredPayloadKeys }
    var settingDeclarations: [HandlerSetting] { handler.settings }
    var sharedInputs: [EventType: String] { handler.sharedInputs }
    var reportView: ReportView? { handler.reportView }
    var stateKind: String { handler.stateKind }
    var sharedKind: String? { sharedCodec?.kind }
    var codecs: [any StreamCodec] { [stateCodec] + (sharedCodec.map { [$0] } ?? []) }

    func stateKey(for notification: SentNotification) -> StreamKey? {
        handler.stateID(for: notification).map { StreamKey(handler.stateKind, $0, user: notification.userID) }
    }

    func sharedKey(for notification: SentNotification) -> StreamKey? {
        guard let sharedCodec else { return nil }
        return handler.sharedID(for: notification).map { StreamKey(sharedCodec.kind, $0) }
    }

    func needsProtectedData(_ action: RespondedAction) -> Bool { handler.needsProtectedData(action) }

    func sent(_ notification: SentNotification, payload: [String: JSONValue], settings: HandlerSettings, in state: WorkingSet) throws -> [DomainEvent] {
        guard let key = stateKey(for: notification) else { return [] }
        let stateKey = StateKey(id: key.id, userID: key.userID)
        let decision = try handler.sent(NewNotification(notification: notification, payload: payload, key: stateKey, settings: settings),
                                        to: state.state(key, as: Handler.State.self))
        try check(decision)
        return decision.events.map { stateCodec.event($0, stream: key) }
    }

    func respond(_ action: RespondedAction, stamp: DeviceStamp, to notification: SentNotification, settings: HandlerSettings,
                 in state: WorkingSet) throws -> HandlerResult {
        guard let key = stateKey(for: notification) else { return .applied }
        let response = CheckedResponse(action: action, stamp: stamp, notification: notification,
                                       key: StateKey(id: key.id, userID: key.userID), settings: settings)
        let shared = sharedKey(for: notification).flatMap { state.state($0, as: Handler.Shared.self) }
        let decision = try handler.respond(response, to: state.state(key, as: Handler.State.self), shared: shared)
        try check(decision)
        return .outcome(decision.outcome, decision.events.map { stateCodec.event($0, stream: key) },
                        revised: Dictionary(decision.revised.map { (ExactString($0.key.eventID), $0.value) }) { $1 })
    }

    func handle(_ input: SharedInput, in state: WorkingSet) throws -> HandlerResult {
        guard let sharedCodec else { return .applied }
        let key = StreamKey(sharedCodec.kind, input.id)
        let decision = try handler.handle(input, shared: state.state(key, as: Handler.Shared.self))
        try check(decision)
        return .outcome(decision.outcome, decision.events.map { sharedCodec.event($0, stream: key) })
    }

    /// A decision may apply, reject with a well-formed reason code, or supersede; stashing
    /// and dead letters are actiond's. A handler that breaks this has failed, like one that throws.
    private func check<Event>(_ decision: Decision<Event>) throws {
        for outcome in [decision.outcome] + Array(decision.revised.values) {
            switch outcome {
            case .applied, .superseded: continue
            case .rejected(let reason) where ReasonCode.isValid(reason): continue
            case .rejected(let reason):
                throw HandlerContractViolation(handler: name, rule: "a rejection's reason code must be 1 to 63 lowercase letters, digits or _, starting with a letter; got \(reason.count) characters")
            case .stashed, .dead:
                throw HandlerContractViolation(handler: name, rule: "a decision may not give the outcome \(outcome.name): actiond stashes and dead-letters")
            }
        }
    }
}

/// Reason codes of rejected outcomes: short, stable, safe to index and to print.
enum ReasonCode {
    static func isValid(_ code: String) -> Bool {
        let bytes = Array(code.utf8)
        guard (1...63).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") }
    }
}

/// A handler's decision that actiond cannot record; the event fails as if the handler threw.
package struct HandlerContractViolation: Error, CustomStringConvertible {
    package var handler: String
    package var rule: String
    package var description: String { "handler \(handler) broke the handler contract: \(rule)" }
}

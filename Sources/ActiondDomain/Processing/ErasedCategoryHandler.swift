import Foundation

/// A `CategoryHandler` behind one interface, whatever its state and event types: what the
/// router, the working set and rebuild use. Every handler goes through the same adapter,
/// which also holds it to the contract: ids and names actiond can store, outcomes actiond
/// can record, rows it was given.
package protocol AnyCategoryHandler: Sendable {
    var name: String { get }
    var requiredPayloadKeys: [String] { get }
    var settingDeclarations: [HandlerSetting] { get }
    var sharedInputs: [EventType: String] { get }
    var inputRequiredKeys: [EventType: [String]] { get }
    var reportView: ReportView? { get }
    var stateKind: String { get }
    /// nil when the handler keeps no shared state.
    var sharedKind: String? { get }
    var codecs: [any StreamCodec] { get }

    /// The row a notification's responses act on; an error for an id actiond cannot store.
    func stateKey(for notification: SentNotification) throws -> StreamKey?
    func sharedKey(for notification: SentNotification) throws -> StreamKey?
    func needsProtectedData(_ action: RespondedAction) -> Bool
    var protectsAlert: Bool { get }
    func sent(_ notification: SentNotification, payload: [String: JSONValue], settings: [String: Int], in state: WorkingSet) throws -> EventDecision
    func respond(_ action: RespondedAction, stamp: DeviceStamp, to notification: SentNotification, settings: [String: Int],
                 in state: WorkingSet) throws -> EventDecision
    func handle(_ input: SharedInput, in state: WorkingSet) throws -> EventDecision
}

struct ErasedCategoryHandler<Handler: CategoryHandler>: AnyCategoryHandler {
    /// Longest state id, in UTF-8 bytes: with the kind and the user it must fit a B-tree
    /// index entry (about 2,700 bytes).
    static var maximumIDBytes: Int { 1000 }

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
            kind: handler.sharedKind, eventVersion: handler.sharedEventVersion, stateVersion: handler.sharedStateVersion,
            fold: { event, state, key in handler.applyShared(event, to: state, id: key.id) },
            report: { handler.sharedReport($0) },
            readEvent: { try handler.decodeSharedEvent($0, version: $1) },
            readState: { try handler.decodeShared($0, version: $1) })
    }

    var name: String { handler.name }
    var requiredPayloadKeys: [String] { handler.requiredPayloadKeys }
    var settingDeclarations: [HandlerSetting] { handler.settings }
    var sharedInputs: [EventType: String] { handler.sharedInputs }
    var inputRequiredKeys: [EventType: [String]] { handler.inputRequiredKeys }
    var reportView: ReportView? { handler.reportView }
    var stateKind: String { handler.stateKind }
    var sharedKind: String? { sharedCodec?.kind }
    var codecs: [any StreamCodec] { [stateCodec] + (sharedCodec.map { [$0] } ?? []) }

    func stateKey(for notification: SentNotification) throws -> StreamKey? {
        guard let id = handler.stateID(for: notification) else { return nil }
        try check(id: id, of: "stateID")
        return StreamKey(handler.stateKind, id, user: notification.userID)
    }

    func sharedKey(for notification: SentNotification) throws -> StreamKey? {
        guard let sharedCodec, let id = handler.sharedID(for: notification) else { return nil }
        try check(id: id, of: "sharedID")
        return StreamKey(sharedCodec.kind, id)
    }

    func needsProtectedData(_ action: RespondedAction) -> Bool { handler.needsProtectedData(action) }
    var protectsAlert: Bool { handler.protectsAlert }

    /// The category's settings over the handler's declared defaults (a setting declared after
    /// the category was loaded takes its default).
    private func settings(_ given: [String: Int]) -> HandlerSettings {
        var values = Dictionary(uniqueKeysWithValues: handler.settings.map { ($0.name, $0.defaultValue) })
        values.merge(given) { $1 }
        return HandlerSettings(values)
    }

    func sent(_ notification: SentNotification, payload: [String: JSONValue], settings given: [String: Int], in state: WorkingSet) throws -> EventDecision {
        guard let key = try stateKey(for: notification) else { return .applied }
        let sent = NewNotification(notification: notification, payload: payload, key: StateKey(id: key.id, userID: key.userID), settings: settings(given))
        return try result(handler.sent(sent, to: state.readState(key, as: Handler.State.self)), codec: stateCodec, key: key)
    }

    func respond(_ action: RespondedAction, stamp: DeviceStamp, to notification: SentNotification, settings given: [String: Int],
                 in state: WorkingSet) throws -> EventDecision {
        guard let key = try stateKey(for: notification) else { return .applied }
        let response = CheckedResponse(action: action, stamp: stamp, notification: notification,
                                       key: StateKey(id: key.id, userID: key.userID), settings: settings(given))
        let shared = try sharedKey(for: notification).flatMap { try state.readState($0, as: Handler.Shared.self) }
        return try result(handler.respond(response, to: state.readState(key, as: Handler.State.self), shared: shared), codec: stateCodec, key: key)
    }

    func handle(_ input: SharedInput, in state: WorkingSet) throws -> EventDecision {
        guard let sharedCodec else { return .applied }
        try check(id: input.id, of: "the shared input's id")
        let key = StreamKey(sharedCodec.kind, input.id)
        return try result(handler.handle(input, shared: state.readState(key, as: Handler.Shared.self)), codec: sharedCodec, key: key)
    }

    /// A decision as actiond records it, once it is checked: it may apply, reject with a
    /// well-formed reason code, or supersede (stashing and dead letters are actiond's), and
    /// its events must have names the log can hold. A handler that breaks this has failed,
    /// like one that throws.
    private func result<State, Event: HandlerEvent, Report>(_ decision: Decision<Event>, codec: TypedStreamCodec<State, Event, Report>,
                                                          key: StreamKey) throws -> EventDecision {
        for outcome in [decision.outcome] + Array(decision.revised.values) {
            switch outcome {
            case .applied, .superseded: continue
            case .rejected(let reason) where ReasonCode.isValid(reason): continue
            case .rejected(let reason):
                throw HandlerContractViolation(handler: name, rule: "a rejection's reason code must be 1 to 63 lowercase letters, digits or _, starting with a letter; got \(reason.utf8.count) bytes")
            case .stashed, .dead:
                throw HandlerContractViolation(handler: name, rule: "a decision may not give the outcome \(outcome.name): actiond stashes and dead-letters")
            }
        }
        for event in decision.events where !ReasonCode.isEventName(event.name) {
            throw HandlerContractViolation(handler: name, rule: "an event's name must be 1 to 63 lowercase letters, digits, _ or ., starting with a letter; got \(event.name.utf8.count) bytes")
        }
        return .outcome(decision.outcome, decision.events.map { codec.event($0, stream: key) },
                        revised: Dictionary(decision.revised.map { (ExactString($0.key.eventID), $0.value) }) { $1 })
    }

    private func check(id: String, of what: String) throws {
        guard id.utf8.count <= Self.maximumIDBytes, !id.utf8.contains(0) else {
            throw HandlerContractViolation(handler: name, rule: "\(what) must be at most \(Self.maximumIDBytes) bytes of UTF-8 without NUL; got \(id.utf8.count) bytes")
        }
    }
}

/// Reason codes of rejected outcomes and event names: short, stable, safe to index and to print.
enum ReasonCode {
    static func isValid(_ code: String) -> Bool { isName(code, extra: UInt8(ascii: "_")) }

    static func isEventName(_ name: String) -> Bool { isName(name, extra: UInt8(ascii: "."), UInt8(ascii: "_")) }

    private static func isName(_ text: String, extra: UInt8...) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...63).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || extra.contains($0) }
    }
}

/// A handler's decision that actiond cannot record; the event fails as if the handler threw.
package struct HandlerContractViolation: Error, CustomStringConvertible {
    package var handler: String
    package var rule: String
    package var description: String { "handler \(handler) broke the handler contract: \(rule)" }
}

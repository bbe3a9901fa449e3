import Foundation

/// A notification category's handler: the one seam through which a category gets a domain.
///
/// A handler declares its name (the `handler` of a categories file), the custom payload keys
/// its notifications must carry, its settings, which actions need protected data, the state
/// it keeps per user, and pure decisions: given the state and a checked event, an outcome,
/// the domain events that record what changed, and revisions of earlier verdicts. actiond
/// does the rest for every handler alike: the response checks of docs/contract.md, "Processing",
/// device-time stamps, held responses, the stash, exactly-once effects, storage, rebuild and
/// the report view.
///
/// State is the fold of the handler's events (`apply(_:to:key:)`): decisions never write
/// state directly, so `actiond rebuild` recomputes it from the log. A handler does no I/O
/// and must be deterministic, and so must the encoded form of its state, events and report
/// figures (no `Set`, no dictionary with other than `String` keys: they encode in a
/// different order in every process, and rebuild would never find the live rows equal). Throwing from a decision is a failure: the event is retried
/// with backoff and becomes dead after the last attempt; only its user waits.
///
/// State is keyed by the user it belongs to (`StateKey`): a user's whole state lives
/// together, so it can be placed by user id on a distributed PostgreSQL. State that no single
/// user owns (a meeting every invitee sees cancelled) is `Shared` state, changed only by
/// the input events listed in `sharedInputs` and read by responses; see `docs/handlers.md`.
public protocol CategoryHandler: Sendable {
    /// What the handler keeps per user and state id (an invitation, a timer, an order).
    associatedtype State: Codable & Hashable & Sendable
    /// What a decision changed; `State` is the fold of these.
    associatedtype Event: HandlerEvent
    /// The figures of a state that its report view shows. Never protected text.
    associatedtype Report: Encodable = NoReport
    /// State shared by users, keyed by an id alone (`Never`: the handler has none).
    associatedtype Shared: Codable & Hashable & Sendable = Never
    /// What changed in shared state.
    associatedtype SharedEvent: HandlerEvent = Never
    /// The figures of shared state that the report view may join in.
    associatedtype SharedReport: Encodable = NoReport

    /// The name a categories file gives as `handler`: lowercase letters, digits, `_`.
    var name: String { get }
    /// Custom keys every notification.sent of the handler's categories must carry as strings
    /// (checked by `actiond.submit`).
    var requiredPayloadKeys: [String] { get }
    /// The integer settings a category may give in its `settings`, with their defaults.
    var settings: [HandlerSetting] { get }
    /// The projection kind of the per-user state (default: `name`).
    var stateKind: String { get }
    /// The projection kind of the shared state (default: `name` + `_shared`).
    var sharedKind: String { get }
    /// The version `Event` is stored with (default 1). Raise it when the events' encoded
    /// shape changes, and read older versions in `decodeEvent(_:version:)`.
    var eventVersion: Int { get }
    /// The version `State` is stored with (default 1). Raise it when the state's encoded
    /// shape changes, and read older versions in `decodeState(_:version:)`.
    var stateVersion: Int { get }
    /// The version `SharedEvent` is stored with (default 1).
    var sharedEventVersion: Int { get }
    /// The version `Shared` is stored with (default 1).
    var sharedStateVersion: Int { get }
    /// The report view `actiond migrate` installs for this handler's state; nil: none.
    var reportView: ReportView? { get }
    /// Input event types of the handler's own, for what a team's systems report (not
    /// notifications), each changing the handler's shared state, with the `data` field naming
    /// that state's id: `[EventType("parcel.delivered"): "parcel_id"]`, or the meeting
    /// handler's `[.meetingCancelled: "meeting_id"]`. Names are a namespace and a name joined
    /// by dots (`EventType.isTeamInputName`); one handler per type. `actiond migrate`
    /// registers them, and submit then requires the field as a string (docs/handlers.md,
    /// "Your own input events").
    var sharedInputs: [EventType: String] { get }
    /// Further `data` fields each of `sharedInputs` requires, beside the one naming the
    /// shared state: `[EventType("parcel.delivered"): ["courier"]]`. Submit refuses an event
    /// without one, or with one that is not a string of 1 to 200 characters, naming it.
    var inputRequiredKeys: [EventType: [String]] { get }

    /// The id of the per-user state a notification's responses act on (its user is the
    /// notification's); nil when the notification changes no state.
    func stateID(for notification: SentNotification) -> String?
    /// The id of the shared state a notification's responses read; nil for none.
    func sharedID(for notification: SentNotification) -> String?
    /// Whether the change `action` makes needs the user's protected data (text a reply
    /// writes). Such a response is stashed while the data is unavailable and decided, in
    /// order, once it is available again.
    func needsProtectedData(_ action: RespondedAction) -> Bool
    /// Whether the alert of this handler's notifications (`aps.alert`, or its title, subtitle
    /// and body) is protected text, a message the person was sent: sealed at rest like a
    /// reply's text (default false).
    var protectsAlert: Bool { get }

    /// A notification of one of the handler's categories was sent. Rejecting it records
    /// nothing, not even the notification (its responses are then unknown).
    func sent(_ notification: NewNotification, to state: State?) throws -> Decision<Event>
    /// A response that passed every check of docs/contract.md, "Processing".
    func respond(_ response: CheckedResponse, to state: State?, shared: Shared?) throws -> Decision<Event>
    /// One of `sharedInputs` arrived.
    func handle(_ input: SharedInput, shared: Shared?) throws -> Decision<SharedEvent>

    /// The fold: `state` after `event`. Used live and by `actiond rebuild`, so it must depend
    /// only on its arguments.
    func apply(_ event: Event, to state: State?, key: StateKey) -> State
    /// The fold of shared state.
    func applyShared(_ event: SharedEvent, to shared: Shared?, id: String) -> Shared
    /// The report figures of a state, stored beside it for the report view.
    func report(_ state: State) -> Report
    /// The report figures of shared state.
    func sharedReport(_ shared: Shared) -> SharedReport

    /// Reads an event stored with `version` (an older version: convert it to today's shape).
    func decodeEvent(_ json: String, version: Int) throws -> Event
    /// Reads a shared event stored with `version`.
    func decodeSharedEvent(_ json: String, version: Int) throws -> SharedEvent
    /// Reads a state stored with `version`.
    func decodeState(_ json: String, version: Int) throws -> State
    /// Reads shared state stored with `version`.
    func decodeShared(_ json: String, version: Int) throws -> Shared
}

extension CategoryHandler {
    /// Default: no required payload keys.
    public var requiredPayloadKeys: [String] { [] }
    /// Default: no settings.
    public var settings: [HandlerSetting] { [] }
    /// Default: `name`.
    public var stateKind: String { name }
    /// Default: `name` followed by `_shared`.
    public var sharedKind: String { name + "_shared" }
    /// Default: 1.
    public var eventVersion: Int { 1 }
    /// Default: 1.
    public var stateVersion: Int { 1 }
    /// Default: 1.
    public var sharedEventVersion: Int { 1 }
    /// Default: 1.
    public var sharedStateVersion: Int { 1 }
    /// Default: nil, no report view.
    public var reportView: ReportView? { nil }
    /// Default: no shared inputs.
    public var sharedInputs: [EventType: String] { [:] }
    /// Default: no further required fields.
    public var inputRequiredKeys: [EventType: [String]] { [:] }
    /// Default: nil, responses read no shared state.
    public func sharedID(for notification: SentNotification) -> String? { nil }
    /// Default: false, no action needs protected data.
    public func needsProtectedData(_ action: RespondedAction) -> Bool { false }
    /// Default: false, the alert is not protected text.
    public var protectsAlert: Bool { false }
    /// Default: applied, with no events.
    public func sent(_ notification: NewNotification, to state: State?) throws -> Decision<Event> { Decision() }

    /// Default: reads an event stored with `eventVersion`; any other version throws `UnknownSchemaVersion`.
    public func decodeEvent(_ json: String, version: Int) throws -> Event {
        try Self.decodeCurrent(Event.self, json, version: version, current: eventVersion, what: "event")
    }

    /// Default: reads a shared event stored with `sharedEventVersion`; any other version throws
    /// `UnknownSchemaVersion`.
    public func decodeSharedEvent(_ json: String, version: Int) throws -> SharedEvent {
        try Self.decodeCurrent(SharedEvent.self, json, version: version, current: sharedEventVersion, what: "shared event")
    }

    /// Default: reads a state stored with `stateVersion`; any other version throws `UnknownSchemaVersion`.
    public func decodeState(_ json: String, version: Int) throws -> State {
        try Self.decodeCurrent(State.self, json, version: version, current: stateVersion, what: "state")
    }

    /// Default: reads shared state stored with `sharedStateVersion`; any other version throws
    /// `UnknownSchemaVersion`.
    public func decodeShared(_ json: String, version: Int) throws -> Shared {
        try Self.decodeCurrent(Shared.self, json, version: version, current: sharedStateVersion, what: "shared state")
    }

    /// Decodes `json` when it has the current version; any other version is an error that
    /// says which handler must learn to read it.
    private static func decodeCurrent<T: Decodable>(_ type: T.Type, _ json: String, version: Int, current: Int, what: String) throws -> T {
        guard version == current else { throw UnknownSchemaVersion(what: "\(Self.self) \(what)", version: version, current: current) }
        return try DomainCoding.decode(type, from: json)
    }
}

extension CategoryHandler where Report == NoReport {
    /// Default for a handler without report figures: `NoReport`.
    public func report(_ state: State) -> NoReport { NoReport() }
}

extension CategoryHandler where SharedReport == NoReport {
    /// Default for a handler without shared report figures: `NoReport`.
    public func sharedReport(_ shared: Shared) -> NoReport { NoReport() }
}

extension CategoryHandler where Shared == Never, SharedEvent == Never {
    /// Default for a handler without shared state: applied, with no events (it has no shared inputs).
    public func handle(_ input: SharedInput, shared: Never?) throws -> Decision<Never> { Decision() }
    /// Default for a handler without shared state: never called, as there is no shared event.
    public func applyShared(_: Never, to shared: Never?, id: String) -> Never {}
}

/// A report with no figures.
public struct NoReport: Encodable, Sendable, Hashable, JSONWritable {
    /// No figures.
    public init() {}

    /// `{}`.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.endObject()
    }
}

/// Stored data whose schema version this build cannot read.
public struct UnknownSchemaVersion: Error, CustomStringConvertible {
    /// What could not be read, such as `order_ready event`.
    public var what: String
    /// The version it was stored with.
    public var version: Int
    /// The version this build writes.
    public var current: Int

    /// `what`, stored with `version`, which a build writing `current` cannot read.
    public init(what: String, version: Int, current: Int) {
        self.what = what
        self.version = version
        self.current = current
    }

    /// The error, with what to do about it.
    public var description: String {
        "\(what) stored with schema version \(version) cannot be read by this build (which writes version \(current)): teach the handler's decode functions that version, or run the build that wrote it"
    }
}

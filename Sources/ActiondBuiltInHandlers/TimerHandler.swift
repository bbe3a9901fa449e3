import ActiondDomain
import Foundation

/// The state of an expired timer (the report_timers row).
public enum TimerPhase: String, Sendable, Hashable, Codable {
    /// The timer fired and is not snoozed or stopped (also after a snoozed timer fires again).
    case expired
    /// A Snooze was applied; the timer fires again `snooze_seconds` after it.
    case snoozed
    /// A Stop was applied; responses after it (by device time) are rejected `timer_stopped`.
    case stopped
}

/// A timer and every Snooze / Stop given for it. The state is computed from the responses in
/// device-time order, so it depends only on the set of responses, not on their arrival order.
public struct TimerState: Sendable, Hashable, Codable {
    /// What a response to a timer asks: snooze it or stop it.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Snooze the timer.
        case snooze
        /// Stop the timer.
        case stop
    }

    /// One Snooze or Stop given for the timer, with its device time.
    public struct Response: Sendable, Hashable, Codable {
        /// Snooze or stop.
        public var kind: Kind
        /// When the person gave it, on the device, with the event id to break ties.
        public var at: DeviceStamp

        /// A `kind` response given at `at`.
        public init(kind: Kind, at: DeviceStamp) {
            self.kind = kind
            self.at = at
        }
    }

    /// The timer (the notification's TIMER_ID).
    public var timerID: String
    /// The user the timer belongs to.
    public var userID: String
    /// How long a snooze defers the timer, in seconds: the category's snooze_seconds (default 540).
    public var snoozeSeconds: Int
    /// How many snoozes apply (the category's max_snoozes, default 10); any further one is rejected snooze_limit.
    public var maxSnoozes: Int
    /// Every Snooze and Stop given, applied or rejected, in device-time order.
    public private(set) var responses: [Response] = []
    /// When it last fired (a TIMER_EXPIRED after the first); nil when it fired only once.
    public var refiredAt: Date?

    /// An expired timer with no responses; `snoozeSeconds` and `maxSnoozes` default to 540 and 10, as the settings do.
    public init(timerID: String, userID: String, snoozeSeconds: Int = 540, maxSnoozes: Int = 10) {
        self.timerID = timerID
        self.userID = userID
        self.snoozeSeconds = snoozeSeconds
        self.maxSnoozes = maxSnoozes
    }

    /// The responses applied in device-time order: what the timer looks like now, and the
    /// verdict on each response.
    public struct Fold: Sendable, Hashable {
        /// Expired, snoozed or stopped.
        public var phase: TimerPhase = .expired
        /// When the latest applied snooze makes the timer fire again; nil before any snooze and after a stop.
        public var firesAt: Date?
        /// Snoozes applied (rejected ones do not count).
        public var snoozeCount = 0
        /// Each response's outcome, by its device stamp: applied, or rejected snooze_limit or timer_stopped.
        public var verdicts: [DeviceStamp: EventOutcome] = [:]

        package init(phase: TimerPhase = .expired, firesAt: Date? = nil, snoozeCount: Int = 0, verdicts: [DeviceStamp: EventOutcome] = [:]) {
            self.phase = phase
            self.firesAt = firesAt
            self.snoozeCount = snoozeCount
            self.verdicts = verdicts
        }
    }

    /// `responses` folded in device-time order: the timer now and the verdict on each response.
    public var fold: Fold {
        var fold = Fold()
        for response in responses.sorted(by: { $0.at < $1.at }) {
            if fold.phase == .stopped {
                fold.verdicts[response.at] = .rejected(.timerStopped)
                continue
            }
            switch response.kind {
            case .snooze where fold.snoozeCount >= maxSnoozes:
                fold.verdicts[response.at] = .rejected(.snoozeLimit)
            case .snooze:
                fold.snoozeCount += 1
                fold.phase = .snoozed
                fold.firesAt = response.at.occurredAt.addingTimeInterval(Double(snoozeSeconds))
                fold.verdicts[response.at] = .applied
            case .stop:
                fold.phase = .stopped
                fold.firesAt = nil
                fold.verdicts[response.at] = .applied
            }
        }
        // A snoozed timer that fired again is expired again (its snoozes still count).
        if fold.phase == .snoozed, let refiredAt, let firesAt = fold.firesAt, firesAt <= refiredAt {
            fold.phase = .expired
        }
        return fold
    }

    /// Adds a response in device-time order (the fold's order), so equal sets of responses
    /// give equal states whatever their arrival order.
    mutating func record(_ response: Response) {
        let index = responses.firstIndex { response.at < $0.at } ?? responses.endIndex
        responses.insert(response, at: index)
    }
}

/// What changed in a timer.
public enum TimerEvent: HandlerEvent {
    /// The timer expired, with its snooze length and snooze limit.
    case timerExpired(timerID: String, userID: String, snoozeSeconds: Int, maxSnoozes: Int)
    /// A Snooze was applied, at the given device time.
    case timerSnoozed(timerID: String, userID: String, at: DeviceStamp)
    /// A Stop was applied, at the given device time.
    case timerStopped(timerID: String, userID: String, at: DeviceStamp)
    /// A Snooze or Stop rejected when it arrived (snooze_limit, timer_stopped). It stays in the
    /// timer's history: a late, earlier response may change which verdicts apply.
    case timerResponseRejected(timerID: String, userID: String, kind: TimerState.Kind, at: DeviceStamp)
    /// The timer fired again (a later TIMER_EXPIRED for the same timer).
    case timerRefired(timerID: String, userID: String, at: Date)

    /// `timer.expired`, `timer.snoozed`, `timer.stopped`, `timer.response_rejected` or `timer.refired`.
    public var name: String {
        switch self {
        case .timerExpired: "timer.expired"
        case .timerSnoozed: "timer.snoozed"
        case .timerStopped: "timer.stopped"
        case .timerResponseRejected: "timer.response_rejected"
        case .timerRefired: "timer.refired"
        }
    }
}

/// TIMER_EXPIRED: Snooze (fires again after snooze_seconds, up to max_snoozes) and Stop.
public struct TimerHandler: CategoryHandler {
    /// The largest snooze_seconds a category may set: 366 days, so that a snooze from the
    /// latest accepted occurred_at (2099-12-31) still lands on a time actiond stores.
    public static let longestSnooze = 366 * 86_400

    /// The built-in timer handler; it has no configuration (categories give its settings).
    public init() {}

    /// Categories files name this handler `timer`.
    public var name: String { "timer" }
    /// Notifications of this handler's categories must carry TIMER_ID.
    public var requiredPayloadKeys: [String] { ["TIMER_ID"] }
    /// Timers are stored as projections of kind `timer`.
    public var stateKind: String { "timer" }
    /// snooze_seconds (default 540, from 1 to `longestSnooze`) and max_snoozes (default 10, at least 0).
    public var settings: [HandlerSetting] {
        [HandlerSetting("snooze_seconds", default: 540, minimum: 1, maximum: TimerHandler.longestSnooze), HandlerSetting("max_snoozes", default: 10)]
    }

    /// `report_timers`: each timer's state, when a snoozed one fires again, and the snoozes applied.
    public var reportView: ReportView? {
        ReportView(
            name: "report_timers",
            description: "Each user's timers: state, when a snoozed one fires again, snoozes applied.",
            idColumn: "timer_id",
            columns: [
                ReportColumn("state", .text, key: "phase"),
                ReportColumn("fires_at", .timestamp, key: "firesAt"),
                ReportColumn("snooze_count", .integer, key: "snoozeCount"),
            ])
    }

    /// The timer's id is the notification's TIMER_ID.
    public func stateID(for notification: SentNotification) -> String? { notification["TIMER_ID"] }

    /// SNOOZE_ACTION snoozes, STOP_ACTION stops (byte for byte); other buttons change nothing.
    public static func kind(for action: String) -> TimerState.Kind? {
        switch ExactString(action) {
        case "SNOOZE_ACTION": .snooze
        case "STOP_ACTION": .stop
        default: nil
        }
    }

    /// A TIMER_EXPIRED notification was sent: the timer exists (expired) if it did not, and
    /// fired again if it did.
    public func sent(_ notification: NewNotification, to timer: TimerState?) -> Decision<TimerEvent> {
        let (timerID, userID, time) = (notification.key.id, notification.key.userID, notification.notification.sentAt)
        if timer != nil { return .applied(.timerRefired(timerID: timerID, userID: userID, at: time)) }
        return .applied(.timerExpired(timerID: timerID, userID: userID, snoozeSeconds: notification.settings["snooze_seconds"],
                                      maxSnoozes: notification.settings["max_snoozes"]))
    }

    /// Snooze and Stop join the timer's responses; the verdict is the response's place in
    /// device-time order (a snooze after a stop is rejected timer_stopped, one past
    /// max_snoozes snooze_limit), and a late, earlier response revises the verdicts after it.
    /// Opening the notification changes nothing.
    public func respond(_ response: CheckedResponse, to state: TimerState?, shared: Never?) -> Decision<TimerEvent> {
        let (timerID, userID, stamp) = (response.key.id, response.key.userID, response.stamp)
        // The notification was recorded before its category had this handler: start the timer now.
        var created: [TimerEvent] = []
        if state == nil {
            created = [.timerExpired(timerID: timerID, userID: userID, snoozeSeconds: response.settings["snooze_seconds"],
                                     maxSnoozes: response.settings["max_snoozes"])]
        }
        let timer = created.reduce(state) { apply($1, to: $0, key: response.key) }!
        guard let button = response.actionIdentifier, let kind = Self.kind(for: button) else { return Decision(.applied, created) }
        var next = timer
        next.record(TimerState.Response(kind: kind, at: stamp))
        let before = timer.fold.verdicts
        let after = next.fold.verdicts
        let revised = after.filter { $0.key != stamp && before[$0.key] != $0.value }
        let outcome = after[stamp] ?? .applied
        let event: TimerEvent = switch (outcome, kind) {
        case (.applied, .stop): .timerStopped(timerID: timerID, userID: userID, at: stamp)
        case (.applied, .snooze): .timerSnoozed(timerID: timerID, userID: userID, at: stamp)
        default: .timerResponseRejected(timerID: timerID, userID: userID, kind: kind, at: stamp)
        }
        return Decision(outcome, created + [event], revised: revised)
    }

    /// The timer after `event`: timer.expired creates it with its settings (an existing timer is kept),
    /// a Snooze or Stop (applied or rejected) joins its responses, timer.refired records the latest firing.
    public func apply(_ event: TimerEvent, to state: TimerState?, key: StateKey) -> TimerState {
        var timer = state ?? TimerState(timerID: key.id, userID: key.userID)
        switch event {
        case .timerExpired(let timerID, let userID, let snoozeSeconds, let maxSnoozes):
            return state ?? TimerState(timerID: timerID, userID: userID, snoozeSeconds: snoozeSeconds, maxSnoozes: maxSnoozes)
        case .timerSnoozed(_, _, let stamp):
            timer.record(TimerState.Response(kind: .snooze, at: stamp))
        case .timerStopped(_, _, let stamp):
            timer.record(TimerState.Response(kind: .stop, at: stamp))
        case .timerResponseRejected(_, _, let kind, let stamp):
            timer.record(TimerState.Response(kind: kind, at: stamp))
        case .timerRefired(_, _, let time):
            timer.refiredAt = max(timer.refiredAt ?? time, time)
        }
        return timer
    }

    /// report_timers' figures of one timer.
    public struct TimerReport: Encodable, Sendable {
        /// The timer's phase (column `state`).
        public var phase: TimerPhase
        /// When the latest applied snooze makes the timer fire again (column `fires_at`).
        public var firesAt: Date?
        /// Snoozes applied (column `snooze_count`).
        public var snoozeCount: Int
    }

    /// The timer's phase, next firing and snoozes applied, from its fold.
    public func report(_ timer: TimerState) -> TimerReport {
        let fold = timer.fold
        return TimerReport(phase: fold.phase, firesAt: fold.firesAt, snoozeCount: fold.snoozeCount)
    }
}

// The stored JSON of the timer's types, written without Codable's containers (JSONWritable).

extension TimerPhase: JSONWritable {}
extension TimerState.Kind: JSONWritable {}

extension TimerState.Response: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.key("at"); try at.write(to: &json)
        json.key("kind"); try kind.write(to: &json)
        json.endObject()
    }
}

extension TimerState: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        json.key("maxSnoozes"); json.number(maxSnoozes)
        if let refiredAt { json.key("refiredAt"); try json.date(refiredAt) }
        json.key("responses"); try responses.write(to: &json)
        json.key("snoozeSeconds"); json.number(snoozeSeconds)
        json.key("timerID"); json.string(timerID)
        json.key("userID"); json.string(userID)
        json.endObject()
    }
}

extension TimerEvent: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        switch self {
        case .timerExpired(let timerID, let userID, let snoozeSeconds, let maxSnoozes):
            json.key("timerExpired"); json.beginObject()
            json.key("maxSnoozes"); json.number(maxSnoozes)
            json.key("snoozeSeconds"); json.number(snoozeSeconds)
            json.key("timerID"); json.string(timerID)
            json.key("userID"); json.string(userID)
        case .timerSnoozed(let timerID, let userID, let stamp):
            json.key("timerSnoozed"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("timerID"); json.string(timerID)
            json.key("userID"); json.string(userID)
        case .timerStopped(let timerID, let userID, let stamp):
            json.key("timerStopped"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("timerID"); json.string(timerID)
            json.key("userID"); json.string(userID)
        case .timerResponseRejected(let timerID, let userID, let kind, let stamp):
            json.key("timerResponseRejected"); json.beginObject()
            json.key("at"); try stamp.write(to: &json)
            json.key("kind"); try kind.write(to: &json)
            json.key("timerID"); json.string(timerID)
            json.key("userID"); json.string(userID)
        case .timerRefired(let timerID, let userID, let time):
            json.key("timerRefired"); json.beginObject()
            json.key("at"); try json.date(time)
            json.key("timerID"); json.string(timerID)
            json.key("userID"); json.string(userID)
        }
        json.endObject()
        json.endObject()
    }
}

extension TimerHandler.TimerReport: JSONWritable {
    /// Writes the value as its `Encodable` form would.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        if let firesAt { json.key("firesAt"); try json.date(firesAt) }
        json.key("phase"); try phase.write(to: &json)
        json.key("snoozeCount"); json.number(snoozeCount)
        json.endObject()
    }
}

extension TimerPhase: JSONReadable {}
extension TimerState.Kind: JSONReadable {}

extension TimerState.Response: JSONReadable {
    /// Reads today's stored form (see `JSONReadable`).
    public init(json: JSONValue) throws {
        self.init(kind: try TimerState.Kind(json: json.member("kind")), at: try DeviceStamp(json: json.member("at")))
    }
}

extension TimerState: JSONReadable {
    /// Reads today's stored form (see `JSONReadable`).
    public init(json: JSONValue) throws {
        self.init(timerID: try json.member("timerID").string(), userID: try json.member("userID").string(),
                  snoozeSeconds: try json.member("snoozeSeconds").int(), maxSnoozes: try json.member("maxSnoozes").int())
        responses = try json.member("responses").array(of: Response.self)
        refiredAt = try json.optionalMember("refiredAt")?.date()
    }
}

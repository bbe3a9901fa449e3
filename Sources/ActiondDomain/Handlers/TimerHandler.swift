import Foundation

/// The state of an expired timer (the report_timers row).
public enum TimerPhase: String, Sendable, Hashable, Codable {
    case expired, snoozed, stopped
}

/// A timer and every Snooze / Stop given for it. The state is computed from the responses in
/// device-time order, so it depends only on the set of responses, not on their arrival order.
public struct TimerState: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable { case snooze, stop }

    public struct Response: Sendable, Hashable, Codable {
        public var kind: Kind
        public var at: DeviceStamp

        public init(kind: Kind, at: DeviceStamp) {
            self.kind = kind
            self.at = at
        }
    }

    public var timerID: String
    public var userID: String
    public var snoozeSeconds: Int
    public var maxSnoozes: Int
    public private(set) var responses: [Response] = []
    /// When it last fired (a TIMER_EXPIRED after the first); nil when it fired only once.
    public var refiredAt: Date?

    public init(timerID: String, userID: String, snoozeSeconds: Int = 540, maxSnoozes: Int = 10) {
        self.timerID = timerID
        self.userID = userID
        self.snoozeSeconds = snoozeSeconds
        self.maxSnoozes = maxSnoozes
    }

    /// The responses applied in device-time order: what the timer looks like now, and the
    /// verdict on each response.
    public struct Fold: Sendable, Hashable {
        public var phase: TimerPhase = .expired
        public var firesAt: Date?
        public var snoozeCount = 0
        public var verdicts: [DeviceStamp: EventOutcome] = [:]

        package init(phase: TimerPhase = .expired, firesAt: Date? = nil, snoozeCount: Int = 0, verdicts: [DeviceStamp: EventOutcome] = [:]) {
            self.phase = phase
            self.firesAt = firesAt
            self.snoozeCount = snoozeCount
            self.verdicts = verdicts
        }
    }

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
    case timerExpired(timerID: String, userID: String, snoozeSeconds: Int, maxSnoozes: Int)
    case timerSnoozed(timerID: String, userID: String, at: DeviceStamp)
    case timerStopped(timerID: String, userID: String, at: DeviceStamp)
    /// A Snooze or Stop rejected when it arrived (snooze_limit, timer_stopped). It stays in the
    /// timer's history: a late, earlier response may change which verdicts apply.
    case timerResponseRejected(timerID: String, userID: String, kind: TimerState.Kind, at: DeviceStamp)
    /// The timer fired again (a later TIMER_EXPIRED for the same timer).
    case timerRefired(timerID: String, userID: String, at: Date)

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

    public init() {}

    public var name: String { "timer" }
    public var requiredPayloadKeys: [String] { ["TIMER_ID"] }
    public var stateKind: String { "timer" }
    public var settings: [HandlerSetting] {
        [HandlerSetting("snooze_seconds", default: 540, minimum: 1, maximum: TimerHandler.longestSnooze), HandlerSetting("max_snoozes", default: 10)]
    }

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
        public var phase: TimerPhase
        public var firesAt: Date?
        public var snoozeCount: Int
    }

    public func report(_ timer: TimerState) -> TimerReport {
        let fold = timer.fold
        return TimerReport(phase: fold.phase, firesAt: fold.firesAt, snoozeCount: fold.snoozeCount)
    }
}

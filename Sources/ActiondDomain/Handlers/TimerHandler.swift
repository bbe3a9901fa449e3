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

        public init(phase: TimerPhase = .expired, firesAt: Date? = nil, snoozeCount: Int = 0, verdicts: [DeviceStamp: EventOutcome] = [:]) {
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

/// TIMER_EXPIRED: Snooze (fires again after snooze_seconds, up to max_snoozes) and Stop.
public enum TimerHandler {
    /// Snooze and Stop write no protected data.
    public static func needsProtectedData(_ action: RespondedAction) -> Bool { false }

    /// SNOOZE_ACTION snoozes, STOP_ACTION stops; other buttons change nothing.
    public static func kind(for action: String) -> TimerState.Kind? {
        switch action {
        case "SNOOZE_ACTION": .snooze
        case "STOP_ACTION": .stop
        default: nil
        }
    }

    /// A TIMER_EXPIRED notification was sent: the timer exists (expired) if it did not, and
    /// fired again if it did.
    public static func sent(_ timer: TimerState?, timerID: String, userID: String, settings: [String: Int], at time: Date) -> Decision<TimerState> {
        if var timer {
            timer.refiredAt = max(timer.refiredAt ?? time, time)
            return Decision(.applied, timer, [.timerRefired(timerID: timerID, userID: timer.userID, at: time)])
        }
        let timer = TimerState(timerID: timerID, userID: userID,
                               snoozeSeconds: settings["snooze_seconds"] ?? 540, maxSnoozes: settings["max_snoozes"] ?? 10)
        return Decision(.applied, timer, [.timerExpired(timerID: timerID, userID: userID,
                                                        snoozeSeconds: timer.snoozeSeconds, maxSnoozes: timer.maxSnoozes)])
    }

    /// A checked response: Snooze and Stop join the timer's responses; the verdict is the
    /// response's place in device-time order (a snooze after a stop is rejected timer_stopped,
    /// one past max_snoozes snooze_limit). Opening the notification changes nothing.
    public static func respond(_ action: RespondedAction, at stamp: DeviceStamp, to timer: TimerState) -> Decision<TimerState> {
        guard case .action(let button, _) = action, let kind = kind(for: button.identifier) else { return Decision(.applied, timer) }
        var next = timer
        next.record(TimerState.Response(kind: kind, at: stamp))
        let before = timer.fold.verdicts
        let after = next.fold.verdicts
        let revised = after.filter { $0.key != stamp && before[$0.key] != $0.value }
        let outcome = after[stamp] ?? .applied
        let (timerID, userID) = (timer.timerID, timer.userID)
        let event: DomainEvent = switch (outcome, kind) {
        case (.applied, .stop): .timerStopped(timerID: timerID, userID: userID, at: stamp)
        case (.applied, .snooze): .timerSnoozed(timerID: timerID, userID: userID, at: stamp)
        default: .timerResponseRejected(timerID: timerID, userID: userID, kind: kind, at: stamp)
        }
        return Decision(outcome, next, [event], revised: revised)
    }
}

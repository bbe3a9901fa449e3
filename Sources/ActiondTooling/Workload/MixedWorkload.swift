import ActiondDomain
import Foundation

/// A reproducible mix of every input the product handles, for tests, the benchmark and the
/// demo: invitations answered (some twice, some out of device order, some cancelled),
/// timers snoozed up to and past the limit and stopped, message threads with replies and
/// read markers, devices locked while replying, and responses arriving before their
/// notification. Each user's events keep their order; users are interleaved at random.
package struct MixedWorkload: Sendable {
    package var users: Int
    package var seed: UInt64
    /// Prefix of every id, so that runs do not collide.
    package var runID: String
    /// Prefix of user ids (default `runID`): rounds with other run ids and the same prefix
    /// give the same users more events.
    package var userPrefix: String
    /// Device time of the first event.
    package var start: Date
    /// Whether some responses come before their notification (held, then applied).
    package var earlyResponses = true
    /// Whether some organizers cancel their meeting. Whether an invitee's response comes
    /// before or after another user's cancellation depends on which worker got there first,
    /// so a run that compares outcomes across databases leaves them out (and cancels later).
    package var meetingCancellations = true

    package init(users: Int, seed: UInt64 = 1, runID: String, userPrefix: String? = nil, start: Date = Date(timeIntervalSince1970: 1_795_000_000)) {
        self.users = users
        self.seed = seed
        self.runID = runID
        self.userPrefix = userPrefix ?? runID
        self.start = start
    }

    /// The events as JSON Lines, in submission order.
    package func events() -> [String] {
        var random = SplitMix64(seed: seed)
        var perUser: [[String]] = []
        perUser.reserveCapacity(users)
        for index in 0..<users {
            perUser.append(userEvents(index, random: &random))
        }
        // Interleave users at random, each user's events in order.
        var cursors = [Int](repeating: 0, count: users)
        var open = Array(0..<users)
        var lines: [String] = []
        lines.reserveCapacity(perUser.reduce(0) { $0 + $1.count })
        while !open.isEmpty {
            let pick = Int.random(in: 0..<open.count, using: &random)
            let user = open[pick]
            lines.append(perUser[user][cursors[user]])
            cursors[user] += 1
            if cursors[user] == perUser[user].count { open.swapAt(pick, open.count - 1); open.removeLast() }
        }
        return lines
    }

    private func userEvents(_ index: Int, random: inout SplitMix64) -> [String] {
        let user = "\(userPrefix)-u\(index)"
        let ids = "\(runID)-u\(index)"  // event, request, timer and thread ids: unique per run
        var lines: [String] = []
        var serial = 0
        func add(_ type: String, at seconds: Int, _ data: String) {
            serial += 1
            let time = MicrosecondTimestamp.format(start.addingTimeInterval(Double(seconds)))
            lines.append(#"{"id":"\#(ids)-\#(serial)","type":"\#(type)","user_id":"\#(user)","occurred_at":"\#(time)","data":\#(data)}"#)
        }
        func sent(_ request: String, _ category: String, at seconds: Int, _ keys: String, alert: String) {
            add("notification.sent", at: seconds,
                #"{"request_id":"\#(request)","payload":{"aps":{"category":"\#(category)","alert":{"title":"\#(alert)","body":"\#(alert)"}}\#(keys)}}"#)
        }
        func respond(_ request: String, _ action: String, at seconds: Int, text: String? = nil, locked: Bool = false) {
            let textField = text.map { #","text":"\#($0)""# } ?? ""
            add("notification.response", at: seconds, #"{"request_id":"\#(request)","action":"\#(action)","locked":\#(locked)\#(textField)}"#)
        }
        let open = SystemActionIdentifier.defaultAction.rawValue
        let dismiss = SystemActionIdentifier.dismissAction.rawValue

        // A meeting shared by a group of five users; the group's first user is its organizer.
        let meeting = "\(runID)-meeting-\(index / 5)"
        let invite = "\(ids)-invite"
        let early = Int.random(in: 0..<10, using: &random) == 0 && earlyResponses
        if early { respond(invite, "ACCEPT_ACTION", at: 50) }  // before its notification: held, then applied
        sent(invite, "MEETING_INVITATION", at: 0, #","MEETING_ID":"\#(meeting)""#, alert: "Team sync")
        switch Int.random(in: 0..<6, using: &random) {
        case 0: respond(invite, "ACCEPT_ACTION", at: 60)
        case 1: respond(invite, "DECLINE_ACTION", at: 60, locked: true)
        case 2: respond(invite, "DECLINE_ACTION", at: 90); respond(invite, "ACCEPT_ACTION", at: 70)  // older answer arrives late
        case 3: respond(invite, open, at: 30); respond(invite, "ACCEPT_ACTION", at: 40, locked: true)  // authentication_required
        case 4: respond(invite, dismiss, at: 20)
        default: respond(invite, "ACCEPT_ACTION", at: 60); respond(invite, "DECLINE_ACTION", at: 120)
        }
        if meetingCancellations && index % 5 == 0 && Int.random(in: 0..<3, using: &random) == 0 {
            add("meeting.cancelled", at: 150, #"{"meeting_id":"\#(meeting)"}"#)
        }

        // A timer: snoozes (sometimes past the limit), a stop, sometimes a late earlier stop.
        let timer = "\(ids)-timer"
        sent(timer, "TIMER_EXPIRED", at: 200, #","TIMER_ID":"\#(ids)-t""#, alert: "Tea")
        let snoozes = Int.random(in: 0...12, using: &random)
        var time = 210
        for _ in 0..<snoozes { respond(timer, "SNOOZE_ACTION", at: time, locked: true); time += 540 }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: respond(timer, "STOP_ACTION", at: time)
        case 1: respond(timer, "STOP_ACTION", at: time); respond(timer, "SNOOZE_ACTION", at: time + 10)  // timer_stopped
        case 2 where snoozes > 2: respond(timer, "STOP_ACTION", at: 215 + 540)  // a late stop revises later snoozes
        default: break
        }

        // A thread: a few messages, replies (some while locked), a read marker.
        let thread = "\(ids)-thread"
        let messages = Int.random(in: 1...3, using: &random)
        for message in 0..<messages {
            let request = "\(ids)-msg-\(message)"
            sent(request, "MESSAGE", at: 10_000 + message * 100, #","THREAD_ID":"\#(thread)","MESSAGE_ID":"\#(ids)-m\#(message)""#, alert: "Lunch?")
            let locked = Int.random(in: 0..<3, using: &random) == 0
            if locked { add("protected_data.unavailable", at: 10_000 + message * 100 + 5, "{}") }
            if Int.random(in: 0..<2, using: &random) == 0 {
                respond(request, "REPLY_ACTION", at: 10_000 + message * 100 + 10, text: "Reply \(message) from \(index)", locked: locked)
            }
            if locked { add("protected_data.available", at: 10_000 + message * 100 + 20, "{}") }
            if Int.random(in: 0..<2, using: &random) == 0 { respond(request, "MARK_READ_ACTION", at: 10_000 + message * 100 + 30) }
        }
        // A notification of the GENERAL category, opened; and an action it does not have.
        let general = "\(ids)-general"
        sent(general, "GENERAL", at: 20_000, "", alert: "News")
        respond(general, open, at: 20_010)
        if Int.random(in: 0..<8, using: &random) == 0 { respond(general, "ACCEPT_ACTION", at: 20_020) }  // unknown_action
        return lines
    }
}

import ActiondDomain
import Foundation
import PropertyBased
import Testing

/// Projection rows are folds of their domain events: what the handlers decide and what
/// `Projector` rebuilds from their events must be the same state, and survive storage.
@Suite("Projector")
struct ProjectorTests {
    static let responses = zip(Gen.int(in: 0...4), Gen.int(in: 0...20)).array(of: 1...14)

    /// Folds `events` for `key` onto `start`, as rebuild does.
    static func fold(_ events: [DomainEvent], from start: ProjectionState?) -> ProjectionState? {
        events.reduce(start) { Projector.apply($1, to: $0) }
    }

    @Test func timerStatesAreTheFoldOfTheirEvents() async {
        let snooze = Fixtures.action("TIMER_EXPIRED", "SNOOZE_ACTION"), stop = Fixtures.action("TIMER_EXPIRED", "STOP_ACTION")
        await propertyCheck(count: 200, input: Self.responses) { responses in
            let created = TimerHandler.sent(nil, timerID: "t", userID: "ana", settings: ["snooze_seconds": 60, "max_snoozes": 3], at: Fixtures.epoch)
            var state = created.state
            var projected = Self.fold(created.events, from: nil)
            for (index, response) in responses.enumerated() {
                let stamp = Fixtures.stamp(Double(response.1 * 30), "e\(index)")
                let decision = switch response.0 {
                case 0, 3: TimerHandler.respond(snooze, at: stamp, to: state)
                case 1: TimerHandler.respond(stop, at: stamp, to: state)
                case 2: TimerHandler.respond(.opened, at: stamp, to: state)
                default: TimerHandler.sent(state, timerID: "t", userID: "ana", settings: [:], at: stamp.occurredAt)  // fires again
                }
                state = decision.state
                projected = Self.fold(decision.events, from: projected)
            }
            #expect(projected == .timer(state))
        }
    }

    @Test func invitationStatesAreTheFoldOfTheirEvents() async {
        let actions: [RespondedAction] = [Fixtures.action("MEETING_INVITATION", "ACCEPT_ACTION"), Fixtures.action("MEETING_INVITATION", "DECLINE_ACTION"), .opened, .dismissed, .opened]
        await propertyCheck(count: 200, input: Self.responses) { responses in
            let created = MeetingInvitationHandler.sent(nil, meetingID: "m", userID: "ana")
            var state = created.state
            var projected = Self.fold(created.events, from: nil)
            for (index, response) in responses.enumerated() {
                let decision = MeetingInvitationHandler.respond(actions[response.0], at: Fixtures.stamp(Double(response.1), "e\(index)"), to: state, meeting: nil)
                state = decision.state
                projected = Self.fold(decision.events, from: projected)
            }
            #expect(projected == .invitation(state))
        }
    }

    @Test func threadStatesAreTheFoldOfTheirEvents() async {
        await propertyCheck(count: 200, input: Self.responses) { responses in
            var state: MessageThread?
            var projected: ProjectionState?
            for (index, response) in responses.enumerated() {
                let current = state ?? MessageThread(threadID: "th", userID: "ana")
                let decision: Decision<MessageThread> = switch response.0 {
                case 0, 1: MessageThreadHandler.received(state, threadID: "th", userID: "ana", messageID: "m\(response.1 % 4)", body: "hi", at: Fixtures.epoch)
                case 2: MessageThreadHandler.respond(Fixtures.action("MESSAGE", "REPLY_ACTION", text: "ok"), at: Fixtures.stamp(Double(response.1), "e\(index)"), messageID: nil, to: current)
                default: MessageThreadHandler.respond(Fixtures.action("MESSAGE", "MARK_READ_ACTION"), at: Fixtures.stamp(Double(response.1), "e\(index)"), messageID: "m\(response.1 % 4)", to: current)
                }
                state = decision.state
                projected = Self.fold(decision.events, from: projected)
            }
            if let state, state != MessageThread(threadID: "th", userID: "ana") { #expect(projected == .thread(state)) }
        }
    }

    @Test func documentsRoundTripAtMicrosecondPrecision() throws {
        var timer = TimerHandler.sent(nil, timerID: "t", userID: "ana", settings: [:], at: Fixtures.epoch).state
        timer = TimerHandler.respond(Fixtures.action("TIMER_EXPIRED", "SNOOZE_ACTION"),
                                     at: DeviceStamp(occurredAt: Date(microsecondsSince1970: 1_795_000_000_123_457), eventID: "é"), to: timer).state
        var thread = MessageThread(threadID: "th", userID: "ana")
        thread = MessageThreadHandler.received(thread, threadID: "th", userID: "ana", messageID: "b", body: nil, at: Fixtures.epoch).state
        thread = MessageThreadHandler.received(thread, threadID: "th", userID: "ana", messageID: "a", body: nil, at: Fixtures.epoch).state
        let states: [ProjectionState] = [
            .timer(timer), .thread(thread), .invitation(Invitation(meetingID: "m", userID: "ana")),
            .meeting(Meeting(meetingID: "m", cancelledAt: Fixtures.at(0.25))),
            .notification(Fixtures.notification("MESSAGE")),
            .protectedData(ProtectedData(userID: "ana", available: false, changedAt: Fixtures.at(1))),
        ]
        for state in states {
            let document = try state.document()
            #expect(try ProjectionState.decode(kind: state.kind, document: document) == state, "\(document)")
        }
        #expect(try ProjectionState.thread(thread).document().contains(#""receivedMessageIDs":["a","b"]"#))
        #expect(try ProjectionState.timer(timer).document().contains(#""report":{"firesAt":"2026-11-18T11:15:40.123457Z","phase":"snoozed","snoozeCount":1}"#))
    }

    @Test(arguments: ["1970-01-01T00:00:00.000000Z", "2026-11-22T09:30:00.250000Z", "1969-12-31T23:59:59.999999Z", "2099-02-28T23:59:59.000001Z"])
    func timestampsRoundTrip(_ text: String) throws {
        let date = try #require(MicrosecondTimestamp.parse(text))
        #expect(MicrosecondTimestamp.format(date) == text)
        #expect(MicrosecondTimestamp.parse("2026-11-22T09:30:00Z") == MicrosecondTimestamp.parse("2026-11-22T09:30:00.000000Z"))
        #expect(MicrosecondTimestamp.parse("2026-11-22 09:30:00Z") == nil)
    }
}

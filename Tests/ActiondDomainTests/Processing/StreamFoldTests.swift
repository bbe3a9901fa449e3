import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import PropertyBased
import Testing

/// Projection rows are folds of their domain events: the state workers keep (stored and read
/// back after every event) and the state rebuild folds from the whole log must be equal.
@Suite("Stream folds")
struct StreamFoldTests {
    static let responses = zip(Gen.int(in: 0...4), Gen.int(in: 0...20)).array(of: 1...14)
    static let catalog = CategoryHandlers.builtIn.catalog

    /// `state` written as a projection document and read back, as the next batch loads it.
    static func stored<State: Hashable & Sendable>(_ state: State, kind: String) -> State {
        let document = try! catalog.document(kind: kind, state: StreamState(state))
        return try! catalog.decodeState(kind: kind, document: document).as(State.self)!
    }

    /// All of a stream's events folded from nothing, as rebuild does.
    static func fold<Handler: CategoryHandler>(_ handler: Handler, _ events: [Handler.Event], key: StateKey) -> Handler.State? {
        events.reduce(nil) { handler.apply($1, to: $0, key: key) }
    }

    @Test func timerStatesAreTheFoldOfTheirEvents() async {
        let snooze = Fixtures.action("TIMER_EXPIRED", "SNOOZE_ACTION"), stop = Fixtures.action("TIMER_EXPIRED", "STOP_ACTION")
        await propertyCheck(count: 200, input: Self.responses) { responses in
            let created = TimerHandler.sent(nil, timerID: "t", userID: "ana", settings: ["snooze_seconds": 60, "max_snoozes": 3], at: Fixtures.epoch)
            var state = created.state
            var log = created.events
            for (index, response) in responses.enumerated() {
                let stamp = Fixtures.stamp(Double(response.1 * 30), "e\(index)")
                let decision = switch response.0 {
                case 0, 3: TimerHandler.respond(snooze, at: stamp, to: state)
                case 1: TimerHandler.respond(stop, at: stamp, to: state)
                case 2: TimerHandler.respond(.opened, at: stamp, to: state)
                default: TimerHandler.sent(state, timerID: "t", userID: "ana", settings: [:], at: stamp.occurredAt)  // fires again
                }
                state = Self.stored(decision.state, kind: "timer")
                log += decision.events
            }
            #expect(Self.fold(TimerHandler(), log, key: StateKey(id: "t", userID: "ana")) == state)
        }
    }

    @Test func invitationStatesAreTheFoldOfTheirEvents() async {
        let actions: [RespondedAction] = [Fixtures.action("MEETING_INVITATION", "ACCEPT_ACTION"), Fixtures.action("MEETING_INVITATION", "DECLINE_ACTION"), .opened, .dismissed, .opened]
        await propertyCheck(count: 200, input: Self.responses) { responses in
            let created = MeetingInvitationHandler.sent(nil, meetingID: "m", userID: "ana")
            var state = created.state
            var log = created.events
            for (index, response) in responses.enumerated() {
                let decision = MeetingInvitationHandler.respond(actions[response.0], at: Fixtures.stamp(Double(response.1), "e\(index)"), to: state, meeting: nil)
                state = Self.stored(decision.state, kind: "invitation")
                log += decision.events
            }
            #expect(Self.fold(MeetingInvitationHandler(), log, key: StateKey(id: "m", userID: "ana")) == state)
        }
    }

    @Test func threadStatesAreTheFoldOfTheirEvents() async {
        await propertyCheck(count: 200, input: Self.responses) { responses in
            var state: MessageThread?
            var log: [MessageThreadEvent] = []
            for (index, response) in responses.enumerated() {
                let current = state ?? MessageThread(threadID: "th", userID: "ana")
                let decision: Decided<MessageThread, MessageThreadEvent> = switch response.0 {
                case 0, 1: MessageThreadHandler.received(state, threadID: "th", userID: "ana", messageID: "m\(response.1 % 4)", body: "hi", at: Fixtures.epoch)
                case 2: MessageThreadHandler.respond(Fixtures.action("MESSAGE", "REPLY_ACTION", text: "ok"), at: Fixtures.stamp(Double(response.1), "e\(index)"), messageID: nil, to: current)
                default: MessageThreadHandler.respond(Fixtures.action("MESSAGE", "MARK_READ_ACTION"), at: Fixtures.stamp(Double(response.1), "e\(index)"), messageID: "m\(response.1 % 4)", to: current)
                }
                state = Self.stored(decision.state, kind: "thread")
                log += decision.events
            }
            if let state, state != MessageThread(threadID: "th", userID: "ana") {
                #expect(Self.fold(MessageThreadHandler(), log, key: StateKey(id: "th", userID: "ana")) == state)
            }
        }
    }

    @Test func documentsRoundTripAtMicrosecondPrecision() throws {
        var timer = TimerHandler.sent(nil, timerID: "t", userID: "ana", settings: [:], at: Fixtures.epoch).state
        timer = TimerHandler.respond(Fixtures.action("TIMER_EXPIRED", "SNOOZE_ACTION"),
                                     at: DeviceStamp(occurredAt: Date(microsecondsSince1970: 1_795_000_000_123_457), eventID: "é"), to: timer).state
        var thread = MessageThread(threadID: "th", userID: "ana")
        thread = MessageThreadHandler.received(thread, threadID: "th", userID: "ana", messageID: "b", body: nil, at: Fixtures.epoch).state
        thread = MessageThreadHandler.received(thread, threadID: "th", userID: "ana", messageID: "a", body: nil, at: Fixtures.epoch).state
        let states: [(String, StreamState)] = [
            ("timer", StreamState(timer)), ("thread", StreamState(thread)), ("invitation", StreamState(Invitation(meetingID: "m", userID: "ana"))),
            ("meeting", StreamState(Meeting(meetingID: "m", cancelledAt: Fixtures.at(0.25)))),
            ("notification", StreamState(Fixtures.notification("MESSAGE"))),
            ("protected_data", StreamState(ProtectedData(userID: "ana", available: false, changedAt: Fixtures.at(1)))),
        ]
        for (kind, state) in states {
            let document = try Self.catalog.document(kind: kind, state: state)
            #expect(try Self.catalog.decodeState(kind: kind, document: document) == state, "\(document)")
            #expect(document.hasSuffix(#""version":1}"#), "every document carries its schema version")
        }
        #expect(try Self.catalog.document(kind: "thread", state: StreamState(thread)).contains(#""receivedMessageIDs":["a","b"]"#))
        #expect(try Self.catalog.document(kind: "timer", state: StreamState(timer)).contains(#""report":{"firesAt":"2026-11-18T11:15:40.123457Z","phase":"snoozed","snoozeCount":1}"#))
    }

    /// Notification rows and events written before the handler API named the built-in
    /// handlers' keys as fields of their own; they still read, as keys.
    @Test func notificationsStoredBeforeTheHandlerAPIStillRead() throws {
        let legacy = #"{"report":{},"state":{"category":"TIMER_EXPIRED","requestID":"r1","sentAt":"2026-11-18T11:00:00.000000Z","timerID":"t-9","userID":"ana"}}"#
        let state = try #require(try Self.catalog.decodeState(kind: "notification", document: legacy).as(SentNotification.self))
        #expect(state.keys == ["TIMER_ID": "t-9"] && state.userID == "ana")
        let event = #"{"notificationRecorded":{"_0":{"category":"MEETING_INVITATION","meetingID":"m-1","requestID":"r2","sentAt":"2026-11-18T11:00:00.000000Z","userID":"bob"}}}"#
        let decoded = try Self.catalog.decodeEvent(event, version: 1, stream: .notification("r2"))
        #expect(decoded.apply(to: nil).as(SentNotification.self)?["MEETING_ID"] == "m-1")
    }

    @Test(arguments: ["1970-01-01T00:00:00.000000Z", "2026-11-22T09:30:00.250000Z", "1969-12-31T23:59:59.999999Z", "2099-02-28T23:59:59.000001Z"])
    func timestampsRoundTrip(_ text: String) throws {
        let date = try #require(MicrosecondTimestamp.parse(text))
        #expect(MicrosecondTimestamp.format(date) == text)
        #expect(MicrosecondTimestamp.parse("2026-11-22T09:30:00Z") == MicrosecondTimestamp.parse("2026-11-22T09:30:00.000000Z"))
        #expect(MicrosecondTimestamp.parse("2026-11-22 09:30:00Z") == nil)
    }
}

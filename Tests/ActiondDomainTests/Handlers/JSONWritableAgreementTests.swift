@testable import ActiondDomain
@testable import ActiondBuiltInHandlers
import Foundation
import Testing

/// The built-in handlers' events, states and reports write their stored JSON by hand
/// (`JSONWritable`), and their states read it by hand (`JSONReadable`); the rebuild, the report
/// views and older builds read what the `Encodable` form wrote. Each written value must be the
/// same JSON value as its `Encodable` form (compared as parsed trees: the database stores both
/// as jsonb), and each read value the one its `Decodable` form reads.
@Suite("JSONWritable and JSONReadable agree with Codable")
struct JSONWritableAgreementTests {
    static func tree(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    /// The JSON value of `text` as bytes (keys sorted by their bytes): compared byte for byte,
    /// so that a writer or reader that changed text into a canonically equivalent form ("é"
    /// for "e\u{301}", which Swift's `==` calls equal) would be caught.
    static func bytes(_ text: String) throws -> [UInt8] { Array(try tree(text).jsonText().utf8) }

    /// Written by hand, and by Codable: the same JSON.
    static func expectAgreement<T: JSONWritable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try DomainCoding.encode(value)
        let codable = try DomainCoding.encodeWithCodable(value)
        #expect(try bytes(written) == bytes(codable), "written \(written)\ncodable \(codable)", sourceLocation: sourceLocation)
    }

    /// Written, then read by hand and by Codable: the same value both ways (the value itself
    /// when its times are whole microseconds, which is what a stored time keeps).
    static func expectRoundTrip<T: JSONWritable & JSONReadable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectAgreement(value, sourceLocation: sourceLocation)
        let written = try DomainCoding.encode(value)
        let byHand = try T(json: tree(written))
        let byCodable = try DomainCoding.decode(T.self, from: written)
        #expect(byHand == byCodable, "\(written)", sourceLocation: sourceLocation)
        // Byte for byte: both readers keep the text exactly as written.
        #expect(try Array(DomainCoding.encode(byHand).utf8) == Array(written.utf8), "\(written)", sourceLocation: sourceLocation)
        #expect(try Array(DomainCoding.encodeWithCodable(byCodable).utf8) == Array(DomainCoding.encodeWithCodable(value).utf8),
                "\(written)", sourceLocation: sourceLocation)
    }

    /// Text a producer could send in an id or a key: quotes, backslashes, control characters,
    /// slashes, look-alikes and decomposed forms, emoji, the empty string.
    static let hostile = ["", "plain", "quote \" backslash \\", "tab\tline\nreturn\r\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}", "a/b</script>",
                          "MAR\u{212A}", "jose\u{301}", "jos\u{e9}", "\u{1F9D1}\u{200D}\u{1F373}", "\u{2028}\u{2029}",
                          String(repeating: "x", count: 300)]
    /// Times at the ends of what may be stored, with microseconds, and ordinary ones.
    static let times = [Date(timeIntervalSince1970: -2_208_988_800), Date(timeIntervalSince1970: 4_291_747_199.999999),
                        Fixtures.at(0.1234567), Fixtures.at(-0.000001), Date(timeIntervalSince1970: 0)]

    @Test func everyBuiltInTypeAgreesOnHostileTextAndExtremeTimes() throws {
        for (index, text) in Self.hostile.enumerated() {
            let time = Self.times[index % Self.times.count]
            let stamp = DeviceStamp(occurredAt: time, eventID: text)
            try Self.expectRoundTrip(stamp)
            let notification = SentNotification(requestID: text, userID: "u" + text, category: text, sentAt: time,
                                                keys: index == 0 ? [:] : ["MEETING_ID": text, text: "v", "\u{e9}": text, "Z": ""])
            try Self.expectRoundTrip(notification)
            try Self.expectAgreement(CoreStreams.NotificationEvent.notificationRecorded(notification))
            try Self.expectRoundTrip(ProtectedData(userID: text, available: index % 2 == 0, changedAt: time))
            try Self.expectAgreement(CoreStreams.ProtectedDataEvent.protectedDataChanged(userID: text, available: index % 2 == 1, at: time))
            try Self.expectAgreement(NoReport())

            var timer = TimerState(timerID: text, userID: text, snoozeSeconds: -index * 60, maxSnoozes: (index + 1) * 1_000_003)
            try Self.expectRoundTrip(timer)
            timer.record(TimerState.Response(kind: .snooze, at: stamp))
            timer.record(TimerState.Response(kind: .stop, at: DeviceStamp(occurredAt: Fixtures.at(1), eventID: "e")))
            timer.refiredAt = index % 2 == 0 ? time : nil
            try Self.expectRoundTrip(timer)
            for event: TimerEvent in [.timerExpired(timerID: text, userID: text, snoozeSeconds: -index, maxSnoozes: Int.min + index),
                                      .timerSnoozed(timerID: text, userID: text, at: stamp), .timerStopped(timerID: text, userID: text, at: stamp),
                                      .timerResponseRejected(timerID: text, userID: text, kind: .snooze, at: stamp),
                                      .timerResponseRejected(timerID: text, userID: text, kind: .stop, at: stamp),
                                      .timerRefired(timerID: text, userID: text, at: time)] {
                try Self.expectAgreement(event)
            }
            for phase in [TimerPhase.expired, .snoozed, .stopped] {
                try Self.expectAgreement(TimerHandler.TimerReport(phase: phase, firesAt: index % 2 == 0 ? time : nil, snoozeCount: index))
            }

            var invitation = Invitation(meetingID: text, userID: text)
            try Self.expectRoundTrip(invitation)
            invitation.response = index % 2 == 0 ? .accepted : .declined
            invitation.responded = stamp
            invitation.opened = index % 3 == 0 ? stamp : nil
            invitation.dismissed = index % 2 == 1 ? stamp : nil
            try Self.expectRoundTrip(invitation)
            try Self.expectRoundTrip(Meeting(meetingID: text))
            try Self.expectRoundTrip(Meeting(meetingID: text, cancelledAt: time))
            for event: MeetingInvitationEvent in [.invitationSent(meetingID: text, userID: text),
                                                  .invitationAnswered(meetingID: text, userID: text, response: .accepted, at: stamp),
                                                  .invitationAnswered(meetingID: text, userID: text, response: .pending, at: stamp),
                                                  .invitationOpened(meetingID: text, userID: text, at: stamp),
                                                  .invitationDismissed(meetingID: text, userID: text, at: stamp)] {
                try Self.expectAgreement(event)
            }
            try Self.expectAgreement(MeetingEvent.meetingCancelled(meetingID: text, at: time))
            try Self.expectAgreement(MeetingInvitationHandler().report(invitation))
            try Self.expectAgreement(MeetingInvitationHandler().sharedReport(Meeting(meetingID: text, cancelledAt: index % 2 == 0 ? time : nil)))

            var thread = MessageThread(threadID: text, userID: text)
            try Self.expectRoundTrip(thread)
            _ = thread.receive(text)
            _ = thread.receive("m2")
            thread.replies = index
            thread.lastReadMessageID = index % 2 == 0 ? text : nil
            thread.lastRead = index % 2 == 0 ? stamp : nil
            try Self.expectRoundTrip(thread)
            try Self.expectAgreement(MessageThreadHandler().report(thread))
        }
    }

    /// A time outside what may be stored fails both ways, naming the time, rather than being
    /// written by one path and refused by the other.
    @Test func anUnstorableTimeFailsOnBothPaths() {
        let late = DeviceStamp(occurredAt: Date(timeIntervalSince1970: 4_291_747_200), eventID: "e")
        let early = Meeting(meetingID: "m", cancelledAt: Date(timeIntervalSince1970: -2_208_988_800.000001))
        #expect(throws: UnstorableTime.self) { try DomainCoding.encode(late) }
        #expect(throws: (any Error).self) { try DomainCoding.encodeWithCodable(late) }
        #expect(throws: UnstorableTime.self) { try DomainCoding.encode(early) }
        #expect(throws: (any Error).self) { try DomainCoding.encodeWithCodable(early) }
    }

    /// Every row and domain event a run of the built-in handlers writes (every kind, stashed
    /// and integrated text, revisions) is the same JSON by both paths; the documents are the
    /// ones the worker stores. (The simulation writes its input JSON by interpolation, so
    /// hostile text is the test above's.)
    @Test func everyDocumentAndEventOfARunAgrees() async throws {
        let run = try await Simulation.everyBuiltInKind()

        let catalog = run.handler.catalog
        var kinds: Set<String> = []
        for key in run.state.loaded {
            guard let state = run.state[key] else { continue }
            let codec = try catalog.codec(key.kind)
            let written = try codec.document(state)
            #expect(try Self.bytes(written) == Self.bytes(codec.documentWithCodable(state)), "\(key): \(written)")
            #expect(try codec.decodeState(written) == state, "\(key): \(written)")
            #expect(try codec.decodeStateWithCodable(written) == state, "\(key): \(written)")
            #expect(try Array(codec.document(codec.decodeState(written)).utf8) == Array(written.utf8), "\(key): \(written)")
            kinds.insert(key.kind)
        }
        #expect(kinds == ["notification", "protected_data", "invitation", "meeting", "timer", "thread"])

        var names: Set<String> = []
        // (Text sealed as it was written: threadEventsSealTheirTextAlike compares those.)
        for appended in run.state.appended where appended.event.payload is any JSONWritable && !appended.event.carriesProtectedText {
            func codable(_ payload: some HandlerEvent) throws -> String { try DomainCoding.encodeWithCodable(payload) }
            #expect(try Self.bytes(appended.json) == Self.bytes(codable(appended.event.payload)), "\(appended.json)")
            names.insert(appended.event.type)
        }
        #expect(names.isSuperset(of: ["notification.recorded", "protected_data.changed", "invitation.sent", "invitation.answered",
                                      "invitation.opened", "invitation.dismissed", "meeting.cancelled", "timer.expired",
                                      "timer.snoozed", "timer.stopped", "timer.response_rejected"]), "\(names.sorted())")
    }

    /// What the hand reader does not read goes to the `Decodable` form: a notification stored
    /// before the handler API (custom keys in fields of their own), a state of an older
    /// version (handed to its handler), and a malformed document (refused, naming it).
    @Test func olderShapesAndMalformedDocumentsAreReadByTheDecodableForm() throws {
        let catalog = EventRouter().catalog
        let legacy = #"{"report":{},"state":{"category":"MEETING_INVITATION","meetingID":"m1","requestID":"r","sentAt":"2026-11-22T09:30:00.250000Z","userID":"u"},"version":1}"#
        let notification = try #require(try catalog.decodeState(kind: "notification", document: legacy).as(SentNotification.self))
        #expect(notification.keys == ["MEETING_ID": "m1"])
        #expect(notification.sentAt == MicrosecondTimestamp.parse("2026-11-22T09:30:00.250000Z"))
        for document in [#"{"state":{"timerID":"t","userID":"u"},"version":1}"#, #"{"state":{"timerID":"t","userID":"u","snoozeSeconds":1.5,"maxSnoozes":1,"responses":[]},"version":1}"#,
                         #"{"state":{"timerID":"t","userID":"u","snoozeSeconds":1,"maxSnoozes":1,"responses":[{"kind":"nap","at":{"eventID":"e","occurredAt":"2026-11-22T09:30:00.000000Z"}}]}}"#,
                         #"{"state":{"timerID":"t","userID":"u","snoozeSeconds":1,"maxSnoozes":1,"responses":[],"refiredAt":"yesterday"}}"#, "not json"] {
            #expect(throws: (any Error).self, "\(document)") { try catalog.decodeState(kind: "timer", document: document) }
        }
        let big = #"{"state":{"timerID":"t","userID":"u","snoozeSeconds":540,"maxSnoozes":9223372036854775807,"responses":[]},"version":1}"#
        let timer = try #require(try catalog.decodeState(kind: "timer", document: big).as(TimerState.self))
        #expect(timer.maxSnoozes == Int.max)
    }

    /// Seals as `field:user:row:text`, so that two writes of the same text compare equal and
    /// show what the seal was bound to.
    struct RecordingSealer: TextSealer {
        func seal(_ text: String, binding: SealBinding) throws -> String { "\(binding.field):\(binding.user):\(binding.row):\(text)" }
        func open(_ sealed: String, binding: SealBinding) throws -> ProtectedText { ProtectedText(String(sealed.split(separator: ":").last ?? "")) }
    }

    /// A thread's events seal their text as they are written: both paths bind it to the same
    /// field, user and row, store a forgotten text alike, and refuse alike where no text may be
    /// stored (outside a sealing scope, in shared state).
    @Test func threadEventsSealTheirTextAlike() throws {
        let stamp = DeviceStamp(occurredAt: Fixtures.at(3), eventID: "e\"1")
        var events: [MessageThreadEvent] = [.threadRead(threadID: "t", userID: "u", messageID: "m", at: stamp)]
        for (index, text) in Self.hostile.enumerated() {
            let time = Self.times[index % Self.times.count]
            events += [.messageReceived(threadID: text, userID: text, messageID: text, body: ProtectedText(text), at: time),
                       .messageReceived(threadID: text, userID: text, messageID: text, body: nil, at: time),
                       .messageReceived(threadID: "t", userID: "u", messageID: "m", body: .forgotten, at: time),
                       .replyPosted(threadID: text, userID: text, text: ProtectedText(text), at: stamp),
                       .replyPosted(threadID: "t", userID: "u", text: .forgotten, at: stamp)]
        }
        for forgetting in [false, true] {
            let scope = TextSealing(sealer: RecordingSealer(), user: "ana", row: "domain:7:thread:t", clearBecomesForgotten: forgetting)
            try TextSealing.$current.withValue(scope) {
                for event in events { try Self.expectAgreement(event) }
            }
        }
        let withText = MessageThreadEvent.replyPosted(threadID: "t", userID: "u", text: "hi", at: stamp)
        let written = try TextSealing.$current.withValue(TextSealing(sealer: RecordingSealer(), user: "ana", row: "r")) {
            try DomainCoding.encode(withText)
        }
        #expect(written.contains(#""sealed":"text:ana:r:hi""#), "\(written)")
        #expect(throws: (any Error).self) { try DomainCoding.encode(withText) }
        #expect(throws: (any Error).self) { try DomainCoding.encodeWithCodable(withText) }
        TextSealing.$current.withValue(TextSealing(sealer: RecordingSealer(), user: "", row: "r")) {
            #expect(throws: SharedProtectedText.self) { try DomainCoding.encode(withText) }
            #expect(throws: SharedProtectedText.self) { try DomainCoding.encodeWithCodable(withText) }
        }
    }
}

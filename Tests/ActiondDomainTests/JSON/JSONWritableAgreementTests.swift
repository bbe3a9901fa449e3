@testable import ActiondDomain
import Foundation
import Testing

/// The built-in handlers' events, states and reports write their stored JSON by hand
/// (`JSONWritable`); the rebuild, the report views and older builds read what the `Encodable`
/// form wrote. Each written value must be the same JSON value as its `Encodable` form
/// (compared as parsed trees: the database stores both as jsonb).
@Suite("JSONWritable agrees with Codable")
struct JSONWritableAgreementTests {
    static func tree(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    /// Written by hand, and by Codable: the same JSON.
    static func expectAgreement<T: JSONWritable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try DomainCoding.encode(value)
        let codable = try DomainCoding.encodeWithCodable(value)
        #expect(try tree(written) == tree(codable), "written \(written)\ncodable \(codable)", sourceLocation: sourceLocation)
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
            try Self.expectAgreement(stamp)
            let notification = SentNotification(requestID: text, userID: "u" + text, category: text, sentAt: time,
                                                keys: index == 0 ? [:] : ["MEETING_ID": text, text: "v", "\u{e9}": text, "Z": ""])
            try Self.expectAgreement(notification)
            try Self.expectAgreement(CoreStreams.NotificationEvent.notificationRecorded(notification))
            try Self.expectAgreement(ProtectedData(userID: text, available: index % 2 == 0, changedAt: time))
            try Self.expectAgreement(CoreStreams.ProtectedDataEvent.protectedDataChanged(userID: text, available: index % 2 == 1, at: time))
            try Self.expectAgreement(NoReport())

            var timer = TimerState(timerID: text, userID: text, snoozeSeconds: index * 60, maxSnoozes: Int.max - index)
            try Self.expectAgreement(timer)
            timer.record(TimerState.Response(kind: .snooze, at: stamp))
            timer.record(TimerState.Response(kind: .stop, at: DeviceStamp(occurredAt: Fixtures.at(1), eventID: "e")))
            timer.refiredAt = index % 2 == 0 ? time : nil
            try Self.expectAgreement(timer)
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
            try Self.expectAgreement(invitation)
            invitation.response = index % 2 == 0 ? .accepted : .declined
            invitation.responded = stamp
            invitation.opened = index % 3 == 0 ? stamp : nil
            invitation.dismissed = index % 2 == 1 ? stamp : nil
            try Self.expectAgreement(invitation)
            try Self.expectAgreement(Meeting(meetingID: text))
            try Self.expectAgreement(Meeting(meetingID: text, cancelledAt: time))
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
            try Self.expectAgreement(thread)
            _ = thread.receive(text)
            _ = thread.receive("m2")
            thread.replies = index
            thread.lastReadMessageID = index % 2 == 0 ? text : nil
            thread.lastRead = index % 2 == 0 ? stamp : nil
            try Self.expectAgreement(thread)
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
        var run = Simulation()
        try await run.sent("s1", category: "MEETING_INVITATION", request: "inv", at: 0.1234567, keys: ["MEETING_ID": "m/1"])
        try await run.respond("a1", request: "inv", action: "DECLINE_ACTION", at: 20.0000004)
        try await run.respond("a0", request: "inv", action: "ACCEPT_ACTION", at: 10.5)
        try await run.respond("a2", request: "inv", action: "com.apple.UNNotificationDefaultActionIdentifier", at: 5.5555555)
        try await run.respond("a3", request: "inv", action: "com.apple.UNNotificationDismissActionIdentifier", at: 6.25)
        try await run.sent("s2", category: "TIMER_EXPIRED", request: "tim", at: 1.0000001, keys: ["TIMER_ID": "t\u{e9}1"])
        try await run.respond("z1", request: "tim", action: "SNOOZE_ACTION", at: 30.3333333, locked: true)
        try await run.respond("z2", request: "tim", action: "SNOOZE_ACTION", at: 90.9999999, locked: true)
        try await run.respond("stop", request: "tim", action: "STOP_ACTION", at: 60.0000005)
        try await run.respond("z3", request: "tim", action: "SNOOZE_ACTION", at: 99)
        try await run.sent("s3", category: "MESSAGE", request: "msg", at: 2.7182818, keys: ["THREAD_ID": "th", "MESSAGE_ID": "m\u{301}1"])
        try await run.run(.protectedDataUnavailable, "lock", at: 3.1415926, data: "{}")
        try await run.respond("reply", request: "msg", action: "REPLY_ACTION", at: 4.0000009, text: "jos\u{e9} \u{1F600}")
        try await run.run(.protectedDataAvailable, "unlock", at: 5.0000001, data: "{}")
        try await run.respond("read", request: "msg", action: "MARK_READ_ACTION", at: 6.6666666)
        try await run.cancel("cancel", meeting: "m/1", at: 7.7777777)

        let catalog = run.handler.catalog
        var kinds: Set<String> = []
        for key in run.state.loaded {
            guard let state = run.state[key] else { continue }
            let codec = try catalog.codec(key.kind)
            let written = try codec.document(state)
            #expect(try Self.tree(written) == Self.tree(codec.documentWithCodable(state)), "\(key): \(written)")
            kinds.insert(key.kind)
        }
        #expect(kinds == ["notification", "protected_data", "invitation", "meeting", "timer", "thread"])

        var names: Set<String> = []
        for appended in run.state.appended where appended.event.payload is any JSONWritable {
            func codable(_ payload: some HandlerEvent) throws -> String { try DomainCoding.encodeWithCodable(payload) }
            #expect(try Self.tree(appended.json) == Self.tree(codable(appended.event.payload)), "\(appended.json)")
            names.insert(appended.event.type)
        }
        #expect(names.isSuperset(of: ["notification.recorded", "protected_data.changed", "invitation.sent", "invitation.answered",
                                      "invitation.opened", "invitation.dismissed", "meeting.cancelled", "timer.expired",
                                      "timer.snoozed", "timer.stopped", "timer.response_rejected"]), "\(names.sorted())")
    }
}

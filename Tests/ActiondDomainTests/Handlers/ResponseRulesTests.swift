import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import Testing

@Suite("Response checks")
struct ResponseRulesTests {
    let rules = ResponseRules()

    func check(_ response: NotificationResponse, user: String = "ana", category: String = "MEETING_INVITATION",
               notification: SentNotification?? = .none, now: Date = Fixtures.at(1)) -> ResponseCheck {
        let sent = notification ?? Fixtures.notification(category)
        return rules.check(response, from: user, submittedAt: Fixtures.epoch, now: now,
                           notification: sent, category: sent.flatMap { Fixtures.registry.category($0.category) })
    }

    @Test func aResponseBeforeItsNotificationIsHeldThenRejectedAfterTheWindow() {
        let response = NotificationResponse(requestID: "req-9", action: "ACCEPT_ACTION")
        #expect(check(response, notification: .some(nil), now: Fixtures.at(599)) == .hold(until: Fixtures.at(600)))
        #expect(check(response, notification: .some(nil), now: Fixtures.at(600)) == .reject(.unknownNotification))
        let short = ResponseRules(holdWindow: .seconds(1))
        #expect(short.check(response, from: "ana", submittedAt: Fixtures.epoch, now: Fixtures.at(2), notification: nil, category: nil) == .reject(.unknownNotification))
    }

    @Test func eachReasonCode() {
        #expect(check(NotificationResponse(requestID: "req-1", action: "ACCEPT_ACTION"), user: "bob") == .reject(.notYourNotification))
        #expect(check(NotificationResponse(requestID: "req-1", action: "SNOOZE_ACTION")) == .reject(.unknownAction), "an action of another category")
        #expect(check(NotificationResponse(requestID: "req-1", action: "accept_action")) == .reject(.unknownAction), "identifiers are case-sensitive")
        #expect(check(NotificationResponse(requestID: "req-1", action: SystemActionIdentifier.dismissAction.rawValue), category: "MESSAGE") == .reject(.dismissNotEnabled))
        #expect(check(NotificationResponse(requestID: "req-1", action: "ACCEPT_ACTION", locked: true)) == .reject(.authenticationRequired))
        #expect(check(NotificationResponse(requestID: "req-1", action: "ACCEPT_ACTION", text: "yes")) == .reject(.invalidText), "text on a non-text action")
        #expect(check(NotificationResponse(requestID: "req-1", action: SystemActionIdentifier.defaultAction.rawValue, text: "x")) == .reject(.invalidText))
    }

    /// Swift's `==` calls these pairs equal (canonically equivalent); PostgreSQL and the device
    /// do not, so neither may the checks.
    @Test func aLookAlikeIdentifierIsAnotherIdentifier() {
        let (nfc, nfd, kelvin) = ("jos\u{e9}", "jose\u{301}", "MAR\u{212A}_READ_ACTION")
        #expect(nfc == nfd && kelvin == "MARK_READ_ACTION", "the hazard: String == folds these")
        let sent = Fixtures.notification("MEETING_INVITATION", user: nfc)
        #expect(check(NotificationResponse(requestID: "req-1", action: "DECLINE_ACTION"), user: nfd, notification: sent) == .reject(.notYourNotification))
        #expect(check(NotificationResponse(requestID: "req-1", action: "DECLINE_ACTION"), user: nfc, notification: sent)
            == .proceed(Fixtures.action("MEETING_INVITATION", "DECLINE_ACTION")))
        #expect(check(NotificationResponse(requestID: "req-1", action: kelvin), category: "MESSAGE") == .reject(.unknownAction))
        #expect(check(NotificationResponse(requestID: "req-1", action: "MARK_READ_ACTION"), category: "MESSAGE")
            == .proceed(Fixtures.action("MESSAGE", "MARK_READ_ACTION")))
        #expect(Fixtures.registry.category("\u{FF2D}ESSAGE") == nil, "fullwidth M")
        #expect(Fixtures.registry.category("MESSAGE") != nil)
        let markRead = Fixtures.registry.category("MESSAGE")!.action("MARK_READ_ACTION")!
        #expect(!markRead.hasIdentifier(kelvin) && markRead.hasIdentifier("MARK_READ_ACTION"))
        #expect(MeetingInvitationHandler.answer(for: "ACCEPT_ACTION") == .accepted)
        #expect(TimerHandler.kind(for: "STOP_ACTION") == .stop)
    }

    @Test func lookAlikeCategoriesAndActionsAreDistinctInARegistry() throws {
        let registry = try CategoryRegistry(categories: [
            NotificationCategory(identifier: "CAF\u{c9}", actions: [NotificationAction(identifier: "O\u{212A}", title: "Kelvin")]),
            NotificationCategory(identifier: "CAFE\u{301}", actions: [NotificationAction(identifier: "OK", title: "Latin")]),
        ])
        #expect(registry.category("CAF\u{c9}")?.actions.map(\.title) == ["Kelvin"])
        #expect(registry.category("CAFE\u{301}")?.actions.map(\.title) == ["Latin"])
        #expect(registry.category("CAFE\u{301}")?.action("O\u{212A}") == nil)
    }

    @Test func whenSeveralRulesAreBrokenTheFirstCheckDecides() {
        #expect(check(NotificationResponse(requestID: "req-1", action: "NOPE"), user: "bob") == .reject(.notYourNotification))
        #expect(check(NotificationResponse(requestID: "req-1", action: "ACCEPT_ACTION", text: "x", locked: true)) == .reject(.authenticationRequired))
        #expect(check(NotificationResponse(requestID: "req-1", action: SystemActionIdentifier.dismissAction.rawValue, text: "x"), category: "MESSAGE") == .reject(.dismissNotEnabled))
    }

    @Test func openingNeedsNoCategory() {
        let sent = Fixtures.notification("RETIRED")
        let answer = rules.check(NotificationResponse(requestID: "req-1", action: SystemActionIdentifier.defaultAction.rawValue),
                                 from: "ana", submittedAt: Fixtures.epoch, now: Fixtures.at(1), notification: sent, category: nil)
        #expect(answer == .proceed(.opened))
        let tapped = rules.check(NotificationResponse(requestID: "req-1", action: "ACCEPT_ACTION"),
                                 from: "ana", submittedAt: Fixtures.epoch, now: Fixtures.at(1), notification: sent, category: nil)
        #expect(tapped == .reject(.unknownAction))
    }

    @Test func acceptedResponses() {
        #expect(check(NotificationResponse(requestID: "req-1", action: "DECLINE_ACTION", locked: true)) == .proceed(Fixtures.action("MEETING_INVITATION", "DECLINE_ACTION")),
                "only authenticationRequired actions need an unlocked device")
        #expect(check(NotificationResponse(requestID: "req-1", action: SystemActionIdentifier.defaultAction.rawValue)) == .proceed(.opened))
        #expect(check(NotificationResponse(requestID: "req-1", action: SystemActionIdentifier.dismissAction.rawValue)) == .proceed(.dismissed))
    }

    @Test(arguments: [
        (nil, false), ("", false), ("a\u{0}b", false), ("   ", true),
        (String(repeating: "x", count: 4001), false), (String(repeating: "é", count: 4000), true),
        // Code points, as PostgreSQL's char_length counts them: 2 per "e" + combining accent.
        (String(repeating: "e\u{301}", count: 2000), true), (String(repeating: "e\u{301}", count: 2001), false),
        ("See you at 12:30", true),
    ] as [(String?, Bool)])
    func replyText(_ text: String?, _ valid: Bool) {
        let answer = check(NotificationResponse(requestID: "req-1", action: "REPLY_ACTION", text: text.map { ProtectedText($0) }), category: "MESSAGE")
        if valid {
            #expect(answer == .proceed(Fixtures.action("MESSAGE", "REPLY_ACTION", text: text)))
        } else {
            #expect(answer == .reject(.invalidText))
        }
    }
}

import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import Testing

/// Input events through `EventRouter`, as a worker applies them, without a database.
@Suite("Event router")
struct EventRouterTests {
    static let open = "com.apple.UNNotificationDefaultActionIdentifier"
    static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"

    @Test func anInvitationIsAnsweredSupersededAndCancelled() async throws {
        var run = Simulation()
        try await run.sent("s1", category: "MEETING_INVITATION", request: "r1", keys: ["MEETING_ID": "m1"])
        #expect(run.state.invitation("m1", user: "ana")?.response == .pending)
        try await run.respond("a", request: "r1", action: "DECLINE_ACTION", at: 20)
        try await run.respond("b", request: "r1", action: "ACCEPT_ACTION", at: 10)  // older, arrives later
        try await run.respond("o", request: "r1", action: Self.open, at: 5)
        #expect(run.outcomes["a"] == .applied && run.outcomes["b"] == .superseded && run.outcomes["o"] == .applied)
        #expect(run.state.invitation("m1", user: "ana")?.response == .declined)
        #expect(run.state.invitation("m1", user: "ana")?.opened?.occurredAt == Fixtures.at(5))
        try await run.cancel("c", meeting: "m1")
        try await run.respond("late", request: "r1", action: "ACCEPT_ACTION", at: 30)
        #expect(run.outcomes["late"] == .rejected(.meetingCancelled))
        #expect(run.state.meeting("m1")?.cancelledAt != nil)
    }

    @Test func everyResponseCheckHasItsReasonCode() async throws {
        var run = Simulation()
        try await run.sent("s1", category: "MEETING_INVITATION", request: "inv", keys: ["MEETING_ID": "m1"])
        try await run.sent("s2", category: "TIMER_EXPIRED", request: "tim", keys: ["TIMER_ID": "t1"])
        try await run.respond("other-user", request: "inv", action: "ACCEPT_ACTION", user: "bob")
        try await run.respond("wrong-category", request: "inv", action: "SNOOZE_ACTION")
        try await run.respond("no-dismiss", request: "tim", action: Self.dismiss)
        try await run.respond("locked", request: "inv", action: "ACCEPT_ACTION", locked: true)
        try await run.respond("text-on-button", request: "inv", action: "DECLINE_ACTION", text: "no")
        try await run.respond("dismissed", request: "inv", action: Self.dismiss)
        #expect(run.outcomes["other-user"] == .rejected(.notYourNotification))
        #expect(run.outcomes["wrong-category"] == .rejected(.unknownAction))
        #expect(run.outcomes["no-dismiss"] == .rejected(.dismissNotEnabled))
        #expect(run.outcomes["locked"] == .rejected(.authenticationRequired))
        #expect(run.outcomes["text-on-button"] == .rejected(.invalidText))
        #expect(run.outcomes["dismissed"] == .applied)
        #expect(run.state.invitation("m1", user: "ana")?.response == .pending, "nothing rejected changed the invitation")
        #expect(run.state.invitation("m1", user: "ana")?.dismissed != nil)
        #expect(run.state.invitation("m1", user: "bob") == nil)
    }

    @Test func aSecondNotificationWithTheSameRequestIdIsRejected() async throws {
        var run = Simulation()
        try await run.sent("s1", category: "MEETING_INVITATION", request: "r1", keys: ["MEETING_ID": "m1"])
        try await run.sent("s2", category: "TIMER_EXPIRED", request: "r1", user: "bob", keys: ["TIMER_ID": "t1"])
        #expect(run.outcomes["s2"] == .rejected(.duplicateRequest))
        #expect(run.state.notification("r1")?.userID == "ana" && run.state.timer("t1", user: "bob") == nil)
    }

    @Test func aResponseBeforeItsNotificationIsHeldThenRejectedAfterTheWindow() async throws {
        var run = Simulation()
        let held = try await run.respond("early", request: "r1", action: "ACCEPT_ACTION", now: Fixtures.at(1))
        #expect(held.verdict == .hold(requestID: "r1", until: Fixtures.at(600)) && held.events.isEmpty)
        let expired = try await run.respond("early", request: "r1", action: "ACCEPT_ACTION", now: Fixtures.at(600))
        #expect(expired.verdict == .outcome(.rejected(.unknownNotification)))
    }

    @Test func aHeldResponseAppliesOnceItsNotificationIsRecorded() async throws {
        var run = Simulation()
        try await run.respond("early", request: "r1", action: "ACCEPT_ACTION", now: Fixtures.at(1))
        #expect(run.held == ["early"])
        try await run.sent("s1", category: "MEETING_INVITATION", request: "r1", keys: ["MEETING_ID": "m1"])
        try await run.respond("early", request: "r1", action: "ACCEPT_ACTION", now: Fixtures.at(2))
        #expect(run.held.isEmpty && run.outcomes["early"] == .applied)
        #expect(run.state.invitation("m1", user: "ana")?.response == .accepted)
    }

    @Test func timersSnoozeToTheLimitStopAndReviseLateVerdicts() async throws {
        var run = Simulation()
        try await run.sent("s1", category: "TIMER_EXPIRED", request: "r1", keys: ["TIMER_ID": "t1"])
        for index in 1...11 {
            try await run.respond("snooze-\(index)", request: "r1", action: "SNOOZE_ACTION", at: Double(index * 600))
        }
        #expect(run.outcomes["snooze-10"] == .applied && run.outcomes["snooze-11"] == .rejected(.snoozeLimit))
        #expect(run.state.timer("t1", user: "ana")?.fold.snoozeCount == 10)
        // A Stop given before the tenth snooze, arriving now: the tenth is revised to timer_stopped.
        try await run.respond("stop", request: "r1", action: "STOP_ACTION", at: 5_900)
        #expect(run.outcomes["stop"] == .applied)
        #expect(run.outcomes["snooze-10"] == .rejected(.timerStopped) && run.outcomes["snooze-11"] == .rejected(.timerStopped))
        let fold = try #require(run.state.timer("t1", user: "ana")?.fold)
        #expect(fold.phase == .stopped && fold.snoozeCount == 9 && fold.verdicts.count == 12)
    }

    @Test func canonicallyEquivalentEventIdsAreRevisedSeparately() async throws {
        // "é" and "e\u{301}" are equal as Swift strings but two ids to PostgreSQL. A review
        // found the revision map trapping on them ("Duplicate values for key").
        var run = Simulation()
        try await run.sent("s1", category: "TIMER_EXPIRED", request: "r1", keys: ["TIMER_ID": "t1"])
        try await run.respond("s-caf\u{E9}", request: "r1", action: "SNOOZE_ACTION", at: 100)
        try await run.respond("s-cafe\u{301}", request: "r1", action: "SNOOZE_ACTION", at: 200)
        let stop = try await run.respond("stop", request: "r1", action: "STOP_ACTION", at: 50)
        #expect(stop.revised.count == 2)
        #expect(run.state.timer("t1", user: "ana")?.fold.snoozeCount == 0)
    }

    @Test func messagesRepliesAndReadMarkers() async throws {
        var run = Simulation()
        try await run.sent("s1", category: "MESSAGE", request: "r1", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m1"])
        try await run.sent("s2", category: "MESSAGE", request: "r2", keys: ["THREAD_ID": "th", "MESSAGE_ID": "m2"])
        try await run.respond("reply", request: "r1", action: "REPLY_ACTION", text: "On my way")
        try await run.respond("empty", request: "r1", action: "REPLY_ACTION", text: "")
        try await run.respond("read", request: "r2", action: "MARK_READ_ACTION", at: 20)
        try await run.respond("older-read", request: "r1", action: "MARK_READ_ACTION", at: 15)
        let thread = try #require(run.state.thread("th", user: "ana"))
        #expect(thread.messages == 2 && thread.replies == 1 && thread.lastReadMessageID == "m2")
        #expect(run.outcomes["empty"] == .rejected(.invalidText) && run.outcomes["older-read"] == .superseded)
        let posted = run.state.threadEvents.filter { if case .replyPosted = $0 { true } else { false } }
        #expect(posted == [.replyPosted(threadID: "th", userID: "ana", text: "On my way", at: DeviceStamp(occurredAt: Fixtures.at(10), eventID: "reply"))])
    }

    @Test func generalRecordsOpenAndDismissOnly() async throws {
        var run = Simulation()
        try await run.sent("s1", category: "GENERAL", request: "r1")
        try await run.respond("opened", request: "r1", action: Self.open)
        try await run.respond("dismissed", request: "r1", action: Self.dismiss)
        try await run.respond("button", request: "r1", action: "ACCEPT_ACTION")
        #expect(run.outcomes == ["s1": .applied, "opened": .applied, "dismissed": .applied, "button": .rejected(.unknownAction)])
        #expect(Set(run.state.changed.keys) == [.notification("r1")])
    }

    @Test func protectedDataAvailabilityIsRecordedPerUser() async throws {
        var run = Simulation()
        #expect(run.state.protectedDataAvailable(user: "ana"))
        try await run.run(.protectedDataUnavailable, "lock", data: "{}")
        #expect(!run.state.protectedDataAvailable(user: "ana") && run.state.protectedDataAvailable(user: "bob"))
        try await run.run(.protectedDataAvailable, "unlock", data: "{}")
        #expect(run.state.protectedDataAvailable(user: "ana"))
    }

    @Test func unreadableDataFailsTheEventInsteadOfGuessing() async throws {
        var run = Simulation()
        #expect(throws: EventData.Unreadable.self) {
            try EventData.parse(LoggedEvent(position: 1, id: "bad", type: .notificationResponse, userID: "ana", occurredAt: Fixtures.epoch,
                                            data: #"{"request_id":"r1","action":"ACCEPT_ACTION"}"#, submittedAt: Fixtures.epoch))
        }
        await #expect(throws: (any Error).self) {
            try await run.run(.notificationResponse, "bad", data: #"{"request_id":"r1","action":"ACCEPT_ACTION"}"#)
        }
    }
}

import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import Testing

@Suite("Meeting invitations")
struct MeetingInvitationHandlerTests {
    let accept = Fixtures.action("MEETING_INVITATION", "ACCEPT_ACTION")
    let decline = Fixtures.action("MEETING_INVITATION", "DECLINE_ACTION")

    var pending: Invitation { MeetingInvitationHandler.sent(nil, meetingID: "m-1", userID: "ana").state }

    @Test func sentCreatesAPendingInvitationOnce() {
        let first = MeetingInvitationHandler.sent(nil, meetingID: "m-1", userID: "ana")
        #expect(first.state.response == .pending && first.events == [.invitationSent(meetingID: "m-1", userID: "ana")])
        let again = MeetingInvitationHandler.sent(first.state, meetingID: "m-1", userID: "ana")
        #expect(again.state == first.state && again.events.isEmpty)
    }

    @Test func acceptDeclineOpenDismiss() {
        let accepted = MeetingInvitationHandler.respond(accept, at: Fixtures.stamp(10, "r1"), to: pending, meeting: nil)
        #expect(accepted.outcome == .applied && accepted.state.response == .accepted && accepted.state.responded == Fixtures.stamp(10, "r1"))
        let declined = MeetingInvitationHandler.respond(decline, at: Fixtures.stamp(20, "r2"), to: accepted.state, meeting: nil)
        #expect(declined.outcome == .applied && declined.state.response == .declined)
        let opened = MeetingInvitationHandler.respond(.opened, at: Fixtures.stamp(5, "r3"), to: declined.state, meeting: nil)
        #expect(opened.outcome == .applied && opened.state.opened == Fixtures.stamp(5, "r3") && opened.state.response == .declined)
        let dismissed = MeetingInvitationHandler.respond(.dismissed, at: Fixtures.stamp(6, "r4"), to: opened.state, meeting: nil)
        #expect(dismissed.outcome == .applied && dismissed.state.dismissed == Fixtures.stamp(6, "r4"))
    }

    @Test func anOlderAnswerArrivingLateIsSuperseded() {
        let newer = MeetingInvitationHandler.respond(decline, at: Fixtures.stamp(20, "r2"), to: pending, meeting: nil)
        let older = MeetingInvitationHandler.respond(accept, at: Fixtures.stamp(10, "r1"), to: newer.state, meeting: nil)
        #expect(older.outcome == .superseded && older.state == newer.state && older.events.isEmpty)
    }

    @Test func everyResponseAfterCancellationIsRejected() {
        let cancelled = MeetingInvitationHandler.cancel(nil, meetingID: "m-1", at: Fixtures.at(1))
        #expect(cancelled.events == [.meetingCancelled(meetingID: "m-1", at: Fixtures.at(1))])
        for action in [accept, decline, .opened, .dismissed] {
            let answer = MeetingInvitationHandler.respond(action, at: Fixtures.stamp(30, "r"), to: pending, meeting: cancelled.state)
            #expect(answer.outcome == .rejected(.meetingCancelled) && answer.state == pending)
        }
        #expect(MeetingInvitationHandler.cancel(cancelled.state, meetingID: "m-1", at: Fixtures.at(9)).state.cancelledAt == Fixtures.at(1))
    }
}

@Suite("Timers")
struct TimerHandlerTests {
    let snooze = Fixtures.action("TIMER_EXPIRED", "SNOOZE_ACTION")
    let stop = Fixtures.action("TIMER_EXPIRED", "STOP_ACTION")
    let settings = Fixtures.registry.category("TIMER_EXPIRED")!.settings

    var expired: TimerState { TimerHandler.sent(nil, timerID: "t-1", userID: "ana", settings: settings, at: Fixtures.epoch).state }

    @Test func snoozeMovesFiresAtAndCounts() {
        #expect(expired.fold.phase == .expired && expired.fold.snoozeCount == 0)
        let first = TimerHandler.respond(snooze, at: Fixtures.stamp(100, "s1"), to: expired)
        #expect(first.outcome == .applied)
        #expect(first.state.fold == TimerState.Fold(phase: .snoozed, firesAt: Fixtures.at(640), snoozeCount: 1,
                                                    verdicts: [Fixtures.stamp(100, "s1"): .applied]))
        let second = TimerHandler.respond(snooze, at: Fixtures.stamp(700, "s2"), to: first.state)
        #expect(second.state.fold.firesAt == Fixtures.at(1240) && second.state.fold.snoozeCount == 2)
    }

    @Test func theSnoozeAfterMaxSnoozesIsRejected() {
        var timer = expired
        for index in 1...10 {
            let decision = TimerHandler.respond(snooze, at: Fixtures.stamp(Double(index * 600), "s\(index)"), to: timer)
            #expect(decision.outcome == .applied)
            timer = decision.state
        }
        let eleventh = TimerHandler.respond(snooze, at: Fixtures.stamp(7000, "s11"), to: timer)
        #expect(eleventh.outcome == .rejected(.snoozeLimit))
        #expect(eleventh.state.fold.snoozeCount == 10)
    }

    @Test func stopThenSnoozeIsRejectedTimerStopped() {
        let stopped = TimerHandler.respond(stop, at: Fixtures.stamp(100, "x"), to: expired)
        #expect(stopped.outcome == .applied && stopped.state.fold.phase == .stopped && stopped.state.fold.firesAt == nil)
        let late = TimerHandler.respond(snooze, at: Fixtures.stamp(200, "s"), to: stopped.state)
        #expect(late.outcome == .rejected(.timerStopped))
        // A snooze given before the stop, arriving after it, counts: it happened first.
        let earlier = TimerHandler.respond(snooze, at: Fixtures.stamp(50, "s0"), to: stopped.state)
        #expect(earlier.outcome == .applied && earlier.state.fold.snoozeCount == 1 && earlier.state.fold.phase == .stopped)
    }

    @Test func aTimerThatFiresAgainIsExpiredAgainAndKeepsItsCount() {
        let snoozed = TimerHandler.respond(snooze, at: Fixtures.stamp(100, "s1"), to: expired).state
        #expect(snoozed.fold.phase == .snoozed)
        let early = TimerHandler.sent(snoozed, timerID: "t-1", userID: "ana", settings: settings, at: Fixtures.at(300))
        #expect(early.state.fold.phase == .snoozed, "fired before the snooze ran out: still snoozed")
        let refired = TimerHandler.sent(snoozed, timerID: "t-1", userID: "ana", settings: settings, at: Fixtures.at(640))
        #expect(refired.state.fold.phase == .expired && refired.state.fold.snoozeCount == 1)
        #expect(refired.events == [.timerRefired(timerID: "t-1", userID: "ana", at: Fixtures.at(640))])
    }

    @Test func aLateEarlierStopRevisesTheVerdictOfASnoozeAfterIt() {
        let snoozed = TimerHandler.respond(snooze, at: Fixtures.stamp(100, "s"), to: expired)
        let lateStop = TimerHandler.respond(stop, at: Fixtures.stamp(50, "x"), to: snoozed.state)
        #expect(lateStop.outcome == .applied)
        #expect(lateStop.revised == [Fixtures.stamp(100, "s"): .rejected(.timerStopped)])
        #expect(lateStop.state.fold.snoozeCount == 0 && lateStop.state.fold.phase == .stopped)
    }

    @Test func aSecondStopIsRejectedTimerStopped() {
        let stopped = TimerHandler.respond(stop, at: Fixtures.stamp(100, "x1"), to: expired)
        #expect(TimerHandler.respond(stop, at: Fixtures.stamp(200, "x2"), to: stopped.state).outcome == .rejected(.timerStopped))
    }

    @Test func openingTheNotificationChangesNothing() {
        let opened = TimerHandler.respond(.opened, at: Fixtures.stamp(1, "o"), to: expired)
        #expect(opened.outcome == .applied && opened.state == expired && opened.events.isEmpty)
    }
}

@Suite("Message threads")
struct MessageThreadHandlerTests {
    let reply = Fixtures.action("MESSAGE", "REPLY_ACTION", text: "Sure")
    let markRead = Fixtures.action("MESSAGE", "MARK_READ_ACTION")

    @Test func receivedRepliesAndReadMarkers() {
        let received = MessageThreadHandler.received(nil, threadID: "th-1", userID: "ana", messageID: "msg-1", body: "Lunch?", at: Fixtures.at(0))
        #expect(received.state.messages == 1 && received.events.first?.carriesProtectedText == true)
        let replied = MessageThreadHandler.respond(reply, at: Fixtures.stamp(5, "r"), messageID: "msg-1", to: received.state)
        #expect(replied.outcome == .applied && replied.state.replies == 1)
        #expect(replied.events == [.replyPosted(threadID: "th-1", userID: "ana", text: "Sure", at: Fixtures.stamp(5, "r"))])
        let read = MessageThreadHandler.respond(markRead, at: Fixtures.stamp(9, "m"), messageID: "msg-1", to: replied.state)
        #expect(read.outcome == .applied && read.state.lastReadMessageID == "msg-1")
        let olderRead = MessageThreadHandler.respond(markRead, at: Fixtures.stamp(7, "m0"), messageID: "msg-0", to: read.state)
        #expect(olderRead.outcome == .superseded && olderRead.state.lastReadMessageID == "msg-1")
    }

    @Test func theSameMessageNotifiedTwiceIsOneMessage() {
        let first = MessageThreadHandler.received(nil, threadID: "th-1", userID: "ana", messageID: "msg-1", body: "Lunch?", at: Fixtures.at(0))
        let again = MessageThreadHandler.received(first.state, threadID: "th-1", userID: "ana", messageID: "msg-1", body: "Lunch?", at: Fixtures.at(1))
        #expect(again.state.messages == 1 && again.events.isEmpty)
        let other = MessageThreadHandler.received(again.state, threadID: "th-1", userID: "ana", messageID: "msg-2", body: "12:30?", at: Fixtures.at(2))
        #expect(other.state.messages == 2)
    }

    @Test func aReplyWithoutTextIsInvalid() {
        let thread = MessageThread(threadID: "th-1", userID: "ana")
        let decision = MessageThreadHandler.respond(Fixtures.action("MESSAGE", "REPLY_ACTION"), at: Fixtures.stamp(1, "r"), messageID: "msg-1", to: thread)
        #expect(decision.outcome == .rejected(.invalidText) && decision.state == thread)
    }
}

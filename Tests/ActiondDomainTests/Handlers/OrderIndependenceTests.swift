import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import PropertyBased
import Testing

/// The final state of an invitation or a timer depends only on the set of responses and
/// their device times, never on the order in which they arrive.
@Suite("Order independence")
struct OrderIndependenceTests {
    /// A response: which action (by index), its device time, and a sort key for a shuffle.
    static let responses = zip(Gen.int(in: 0...3), Gen.int(in: 0...20), Gen.int(in: 0...1_000_000)).array(of: 1...12)
    static let shuffleKeys = Gen.int(in: 0...1_000_000).array(of: 12...12)

    static func permuted<T>(_ items: [T], by keys: [Int]) -> [T] {
        items.enumerated().sorted { (keys[$0.offset % keys.count], $0.offset) < (keys[$1.offset % keys.count], $1.offset) }.map(\.element)
    }

    @Test func invitations() async {
        let actions: [RespondedAction] = [
            Fixtures.action("MEETING_INVITATION", "ACCEPT_ACTION"), Fixtures.action("MEETING_INVITATION", "DECLINE_ACTION"), .opened, .dismissed,
        ]
        await propertyCheck(count: 300, input: Self.responses, Self.shuffleKeys) { responses, keys in
            // Distinct event ids; device times may tie (the id breaks ties).
            let events = responses.enumerated().map { index, response in (actions[response.0], Fixtures.stamp(Double(response.1), "e\(index)")) }
            func replay(_ events: [(RespondedAction, DeviceStamp)]) -> Invitation {
                events.reduce(MeetingInvitationHandler.sent(nil, meetingID: "m", userID: "ana").state) { invitation, event in
                    MeetingInvitationHandler.respond(event.0, at: event.1, to: invitation, meeting: nil).state
                }
            }
            #expect(replay(events) == replay(Self.permuted(events, by: keys)))
        }
    }

    @Test func canonicallyEquivalentIdsStillBreakTies() {
        let composed = Fixtures.stamp(10, "\u{e9}"), decomposed = Fixtures.stamp(10, "e\u{301}")
        #expect(composed != decomposed && (composed < decomposed) != (decomposed < composed))
        let accept = Fixtures.action("MEETING_INVITATION", "ACCEPT_ACTION"), decline = Fixtures.action("MEETING_INVITATION", "DECLINE_ACTION")
        let start = MeetingInvitationHandler.sent(nil, meetingID: "m", userID: "ana").state
        let one = MeetingInvitationHandler.respond(decline, at: decomposed, to: MeetingInvitationHandler.respond(accept, at: composed, to: start, meeting: nil).state, meeting: nil).state
        let other = MeetingInvitationHandler.respond(accept, at: composed, to: MeetingInvitationHandler.respond(decline, at: decomposed, to: start, meeting: nil).state, meeting: nil).state
        #expect(one == other)
    }

    @Test func timers() async {
        let actions = [Fixtures.action("TIMER_EXPIRED", "SNOOZE_ACTION"), Fixtures.action("TIMER_EXPIRED", "STOP_ACTION")]
        let small = TimerState(timerID: "t", userID: "ana", snoozeSeconds: 540, maxSnoozes: 3)
        await propertyCheck(count: 300, input: Self.responses, Self.shuffleKeys) { responses, keys in
            let events = responses.enumerated().map { index, response in
                // Three snoozes to one stop, so the snooze limit is reached often.
                (actions[response.0 == 3 ? 1 : 0], Fixtures.stamp(Double(response.1 * 60), "e\(index)"))
            }
            /// The final state, and the outcome log kept as a worker would: each event's
            /// outcome, corrected by the revisions later events report.
            func replay(_ events: [(RespondedAction, DeviceStamp)]) -> (TimerState.Fold, [DeviceStamp: EventOutcome]) {
                var log: [DeviceStamp: EventOutcome] = [:]
                let state = events.reduce(small) { timer, event in
                    let decision = TimerHandler.respond(event.0, at: event.1, to: timer)
                    log[event.1] = decision.outcome
                    log.merge(decision.revised) { $1 }
                    return decision.state
                }
                return (state.fold, log)
            }
            let (fold, log) = replay(events)
            let (shuffledFold, shuffledLog) = replay(Self.permuted(events, by: keys))
            #expect(fold == shuffledFold, "the state depends only on the set of responses")
            #expect(log == fold.verdicts && shuffledLog == shuffledFold.verdicts, "the outcome log agrees with the state")
        }
    }
}

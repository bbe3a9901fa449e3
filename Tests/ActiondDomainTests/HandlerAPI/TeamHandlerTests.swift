import ActiondBuiltInHandlers
@testable import ActiondDomain
import Foundation
import Testing

/// A team's handler gets the same processing as the built-in ones, and its failures stay
/// with the user whose event failed.
@Suite("Team handlers")
struct TeamHandlerTests {
    struct Boom: Error {}

    @Test func aRegisteredHandlerReceivesCheckedResponsesAndItsStateIsTheFold() async throws {
        var probe = try ProbeRun(ProbeHandler())
        let events = [probe.sent("s1", user: "ana", request: "r1"), probe.poke("p1", user: "ana", request: "r1"),
                      probe.poke("p2", user: "ana", request: "r1"), probe.poke("steal", user: "bob", request: "r1")]
        let run = try await probe.run(events)
        #expect(run.finished.map(\.outcome) == [.applied, .applied, .applied, .rejected(.notYourNotification)])
        #expect(run.state.state(StreamKey("probe", "p", user: "ana"), as: Int.self) == 2)
        #expect(run.state.appended.filter { $0.event.stream.kind == "probe" }.map(\.event.type) == ["probe.poked", "probe.poked"])
    }

    @Test func aHandlerThatThrowsDelaysOnlyItsUser() async throws {
        var probe = try ProbeRun(ProbeHandler(decide: { response in
            if response.key.userID == "ana" { throw Boom() }
            return .applied(.poked(by: response.key.userID))
        }))
        let events = [probe.sent("a-s", user: "ana", request: "a"), probe.sent("b-s", user: "bob", request: "b"),
                      probe.poke("a-p", user: "ana", request: "a"), probe.poke("b-p", user: "bob", request: "b"),
                      probe.poke("a-later", user: "ana", request: "a")]
        let run = try await probe.run(events)
        #expect(run.failures.map(\.event.id) == ["a-p"] && run.failures.first?.delay != nil)
        #expect(Set(run.finished.map(\.event.id)) == ["a-s", "b-s", "b-p"], "ana's later event waits; bob's goes on")
        let last = try await probe.run([events[0], events[2]], attempts: 1)
        #expect(last.finished.last?.outcome == .dead && last.finished.last?.error?.contains("Boom") == true)
    }

    @Test(arguments: [
        (EventOutcome.rejected(reason: String(repeating: "x", count: 8192)), "reason code"),
        (.rejected(reason: "Not Yours"), "reason code"),
        (.stashed, "actiond stashes and dead-letters"),
        (.dead, "actiond stashes and dead-letters"),
    ])
    func aDecisionActiondCannotRecordFailsTheEvent(_ outcome: EventOutcome, _ rule: String) async throws {
        var probe = try ProbeRun(ProbeHandler(decide: { _ in Decision(outcome) }))
        let run = try await probe.run([probe.sent("s", user: "ana", request: "r"), probe.poke("p", user: "ana", request: "r")], attempts: 1)
        #expect(run.finished.map(\.outcome) == [.applied, .dead])
        #expect(run.failures.first?.error.contains(rule) == true, "\(run.failures.first?.error ?? "")")
        #expect(run.failures.first?.error.count ?? 0 < 300, "the error does not repeat the oversized reason")
    }

    @Test func aCategoryWhoseHandlerThisBuildLacksFailsNamingIt() async throws {
        var probe = try ProbeRun(ProbeHandler())
        // Stored by another build's `categories load`: this worker reads it without judging it.
        let stored = try CategoryRegistry.stored(Data(#"{"categories":[{"identifier":"PROBE","handler":"order_ready","actions":[{"identifier":"POKE_ACTION","title":"Poke"}]}]}"#.utf8))
        let run = try await probe.run([probe.sent("s", user: "ana", request: "r")], registry: stored, attempts: 1)
        #expect(run.finished.map(\.outcome) == [.dead])
        #expect(run.failures.first?.error.contains("category PROBE uses handler order_ready, which this build does not have") == true)
    }
}

/// The review's hostile cases: each fails only the event that caused it.
@Suite("Team handlers that misbehave")
struct MisbehavingHandlerTests {
    struct Boom: Error {}

    /// A handler whose report cannot be encoded for one user (NaN).
    struct RatioHandler: CategoryHandler {
        enum Event: HandlerEvent {
            case measured(Double)
            var name: String { "ratio.measured" }
        }
        struct Report: Encodable, Sendable { var ratio: Double }
        var name: String { "probe" }
        var requiredPayloadKeys: [String] { ["PROBE_ID"] }
        func stateID(for notification: SentNotification) -> String? { notification["PROBE_ID"] }
        func respond(_ response: CheckedResponse, to state: Double?, shared: Never?) -> Decision<Event> {
            .applied(.measured(response.key.userID == "nan" ? .nan : 1))
        }
        func apply(_ event: Event, to state: Double?, key: StateKey) -> Double {
            switch event { case .measured(let value): value }
        }
        func report(_ state: Double) -> Report { Report(ratio: state) }
    }

    @Test func aStateItsHandlerCannotEncodeFailsOnlyThatEvent() async throws {
        let handlers = try CategoryHandlers.withBuiltIn([RatioHandler()])
        var probe = try ProbeRun(ProbeHandler())
        probe.handler = EventRouter(handlers: handlers)
        probe.registry = try CategoryRegistry.parse(Data(ProbeRun.categories.utf8), handlers: handlers)
        let events = [probe.sent("n-s", user: "nan", request: "n"), probe.sent("o-s", user: "ok", request: "o"),
                      probe.poke("n-p", user: "nan", request: "n"), probe.poke("o-p", user: "ok", request: "o")]
        let run = try await probe.run(events, attempts: 1)
        #expect(run.finished.map { "\($0.event.id)=\($0.outcome.name)" } == ["n-s=applied", "o-s=applied", "n-p=dead", "o-p=applied"])
        #expect(run.state.state(StreamKey("probe", "p", user: "nan"), as: Double.self) == nil, "nothing of the failed decision was applied")
        #expect(run.state.document(StreamKey("probe", "p", user: "ok"))?.contains(#""ratio":1"#) == true)
    }

    /// Ids are unique per user (004): a decision's revision names its own user's event.
    /// Another user's event of the same id in the batch is another event and keeps its outcome.
    @Test func aRevisionNamesTheDecidingUsersEventNotAnotherUsersOfTheSameID() async throws {
        var probe = try ProbeRun(ProbeHandler(decide: { response in
            Decision(.applied, [], revised: [DeviceStamp(occurredAt: Fixtures.at(0), eventID: "x"): .rejected(reason: "revised")])
        }))
        let run = try await probe.run([probe.sent("x", user: "ana", request: "a"), probe.sent("x", user: "bob", request: "b"),
                                       probe.poke("a-p", user: "ana", request: "a")], attempts: 1)
        #expect(run.failures.isEmpty)
        #expect(run.finished.map { "\($0.event.userID)/\($0.event.id)=\($0.outcome.name)" } == ["ana/x=rejected", "bob/x=applied", "ana/a-p=applied"])
        #expect(run.revised.isEmpty, "revised in this batch, not left for commit_batch")
    }

    /// A revision of an id that only another user's event in the batch has is the deciding
    /// user's (an earlier batch's event of theirs, matched by user and id in SQL): the other
    /// user's outcome stands.
    @Test func aRevisionOfAnIDOnlyAnotherUserHasHereLeavesTheirEventAlone() async throws {
        var probe = try ProbeRun(ProbeHandler(decide: { response in
            Decision(.applied, [], revised: [DeviceStamp(occurredAt: Fixtures.at(0), eventID: "b-s"): .rejected(reason: "stolen")])
        }))
        let run = try await probe.run([probe.sent("b-s", user: "bob", request: "b"), probe.sent("a-s", user: "ana", request: "a"),
                                       probe.poke("a-p", user: "ana", request: "a")], attempts: 1)
        #expect(run.finished.first { $0.event.id == "b-s" }?.outcome == .applied, "bob's outcome stands")
        #expect(run.failures.isEmpty)
        #expect(run.revised == [UserEventID(user: "ana", id: ExactString("b-s")): .rejected(reason: "stolen")])
    }

    @Test func anEventNameTheLogCannotHoldFailsTheEvent() async throws {
        var probe = try ProbeRun(ProbeHandler(decide: { _ in .applied(.named("Probe Poked; drop")) }))
        let run = try await probe.run([probe.sent("s", user: "ana", request: "r"), probe.poke("p", user: "ana", request: "r")], attempts: 1)
        #expect(run.finished.map(\.outcome) == [.applied, .dead])
        #expect(run.failures.first?.error.contains("an event's name") == true)
    }

    @Test func aStateIDNoIndexCanHoldFailsOnlyItsUser() async throws {
        var probe = try ProbeRun(ProbeHandler())
        let huge = String(repeating: "é", count: 2000)
        let run = try await probe.run([probe.sent("h-s", user: "huge", request: "h", probe: huge), probe.sent("o-s", user: "ok", request: "o")], attempts: 1)
        #expect(run.finished.map { "\($0.event.id)=\($0.outcome.name)" } == ["h-s=dead", "o-s=applied"])
        #expect(run.failures.first?.error.contains("stateID must be at most 1000 bytes") == true)
    }

    @Test func aRowThisBuildCannotReadFailsOnlyTheEventsThatReadIt() async throws {
        var probe = try ProbeRun(ProbeHandler())
        let events = [probe.sent("a-s", user: "ana", request: "a"), probe.sent("b-s", user: "bob", request: "b")]
        var state = WorkingSet(categories: probe.registry)
        for event in events { for key in try probe.handler.streams(for: event, in: state) { state.load(key, nil) } }
        state.markUnreadable(StreamKey("probe", "p", user: "ana"), error: "probe state stored with schema version 9")
        let run = try await BatchRun.run(events, router: probe.handler, state: state, retry: RetryPolicy(maxAttempts: 3), now: Fixtures.at(0))
        #expect(run.finished.map(\.event.id) == ["b-s"])
        #expect(run.failures.map(\.event.id) == ["a-s"] && run.failures.first?.error.contains("schema version 9") == true)
    }

    @Test func settingsTheCategoryOmitsTakeTheirDeclaredDefaults() async throws {
        var probe = try ProbeRun(ProbeHandler(settings: [HandlerSetting("limit", default: 7)], decide: { response in
            response.settings["limit"] == 7 ? .applied() : .rejected("wrong_default")
        }))
        let run = try await probe.run([probe.sent("s", user: "ana", request: "r"), probe.poke("p", user: "ana", request: "r")])
        #expect(run.finished.map(\.outcome) == [.applied, .applied])
    }

    @Test func aRejectedNotificationRecordsNothing() async throws {
        var probe = try ProbeRun(ProbeHandler(sentDecision: .rejected("not_ready")))
        let run = try await probe.run([probe.sent("s", user: "ana", request: "r")])
        #expect(run.finished.map(\.outcome) == [.rejected(reason: "not_ready")])
        #expect(run.state.appended.isEmpty && run.state.notification("r") == nil)
    }
}

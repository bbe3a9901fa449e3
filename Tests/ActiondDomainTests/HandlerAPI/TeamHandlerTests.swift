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

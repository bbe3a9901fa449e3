import ActiondBuiltInHandlers
@testable import ActiondDomain
import Foundation
import Testing

/// A handler changes the shape of its state: rows the previous version stored are read by
/// the new version's `decodeState`, and a version it does not know is an error, not a guess.
@Suite("State evolution")
struct StateEvolutionTests {
    /// Version 2 of a counter: version 1 stored the count as a bare number.
    struct CounterV2: CategoryHandler {
        struct State: Codable, Hashable, Sendable { var count: Int; var last: String }
        enum Event: HandlerEvent {
            case counted(by: String)
            var name: String { "counter.counted" }
        }
        var name: String { "counter" }
        var stateVersion: Int { 2 }
        func stateID(for notification: SentNotification) -> String? { notification["COUNTER_ID"] }
        func respond(_ response: CheckedResponse, to state: State?, shared: Never?) -> Decision<Event> { .applied(.counted(by: response.key.userID)) }
        func apply(_ event: Event, to state: State?, key: StateKey) -> State {
            switch event { case .counted(let by): State(count: (state?.count ?? 0) + 1, last: by) }
        }
        func decodeState(_ json: String, version: Int) throws -> State {
            switch version {
            case 1: State(count: try DomainCoding.decode(Int.self, from: json), last: "")
            case 2: try DomainCoding.decode(State.self, from: json)
            default: throw UnknownSchemaVersion(what: "counter state", version: version, current: stateVersion)
            }
        }
    }

    @Test func rowsOfThePreviousVersionReadInTheNewShape() throws {
        let catalog = try CategoryHandlers.withBuiltIn([CounterV2()]).catalog
        let v1 = #"{"report":{},"state":41,"version":1}"#
        #expect(try catalog.decodeState(kind: "counter", document: v1).as(CounterV2.State.self) == CounterV2.State(count: 41, last: ""))
        let rewritten = try catalog.document(kind: "counter", state: StreamState(CounterV2.State(count: 42, last: "ana")))
        #expect(rewritten.hasSuffix(#""version":2}"#))
        #expect(try catalog.decodeState(kind: "counter", document: rewritten).as(CounterV2.State.self)?.count == 42)
        #expect(throws: UnknownSchemaVersion.self) { try catalog.decodeState(kind: "counter", document: #"{"report":{},"state":{},"version":3}"#) }
    }
}

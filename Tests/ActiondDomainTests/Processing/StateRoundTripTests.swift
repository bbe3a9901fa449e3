import ActiondDomain
import Foundation
import Testing

/// A worker keeps the states it wrote and reuses them when it reads the same row version
/// again (StateCache) instead of decoding the stored document. That is only right if every
/// state reads back from its document as exactly itself.
@Suite("State round trip")
struct StateRoundTripTests {
    @Test func everyRowReadsBackFromItsDocumentAsTheStateThatWroteIt() async throws {
        let run = try await Simulation.everyBuiltInKind()

        let catalog = run.handler.catalog
        var kinds: Set<String> = []
        for key in run.state.loaded {
            guard let state = run.state[key] else { continue }
            let document = try catalog.document(kind: key.kind, state: state)
            #expect(try catalog.decodeState(kind: key.kind, document: document) == state, "\(key): \(document)")
            kinds.insert(key.kind)
        }
        #expect(kinds == ["notification", "protected_data", "invitation", "meeting", "timer", "thread"])
    }
}

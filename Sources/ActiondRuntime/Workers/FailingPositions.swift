import ActiondDomain
import Foundation

/// The batch's router, failing the events whose stored protected text could not be opened
/// (`EventProtection.prepareEach`): each fails alone, as if its handler had thrown (retried,
/// then dead, with the reason), and the rest of the batch goes on.
struct FailingPositions: EventRouting {
    let router: any EventRouting
    let failures: [Int64: any Error]

    var catalog: StreamCatalog { router.catalog }

    func streams(for event: LoggedEvent, in state: WorkingSet) throws -> [StreamKey] { try router.streams(for: event, in: state) }

    func sharedWrites(for event: LoggedEvent) throws -> [StreamKey] { try router.sharedWrites(for: event) }

    func handle(_ event: LoggedEvent, in state: WorkingSet, now: Date) async throws -> EventDecision {
        if let failure = failures[event.position] { throw failure }
        return try await router.handle(event, in: state, now: now)
    }

    func outcomeLabel(for event: LoggedEvent, in state: WorkingSet) -> OutcomeLabel { router.outcomeLabel(for: event, in: state) }

    func protectsAlert(category: String, in categories: CategoryRegistry?) -> Bool { router.protectsAlert(category: category, in: categories) }
}

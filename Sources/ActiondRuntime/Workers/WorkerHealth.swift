import Synchronization

/// Whether the batch loops are failing for a reason that is no event's fault (schema
/// missing, permissions, connection lost): set by every loop after each batch, read by
/// `GET /health/ready`. A failure that is about one event's data is not systemic and does
/// not show here (its event is retried, then dead).
package final class WorkerHealth: Sendable {
    private let state = Mutex<String?>(nil)

    package init() {}

    /// The last batch failed systemically, for this reason (SQLSTATE and message only).
    func recordSystemicFailure(_ reason: String) {
        state.withLock { $0 = reason }
    }

    /// A batch ran (claimed something or found nothing) without a systemic failure.
    func recordSuccess() {
        state.withLock { if $0 != nil { $0 = nil } }
    }

    /// The reason of the latest systemic failure, unless a batch has succeeded since.
    package var systemicFailure: String? { state.withLock { $0 } }
}

import Synchronization

/// What the pool's tasks share: a wake-up counter bumped by notifications, and the stop flag
/// set on graceful shutdown.
final class WorkerSignals: Sendable {
    private let wakeups = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    var generation: Int { wakeups.load(ordering: .acquiring) }
    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    func wake() { wakeups.add(1, ordering: .releasing) }
    func stop() { stopping.store(true, ordering: .releasing) }

    /// Returns when woken after `generation` was read, when `timeout` passes, or on stop.
    /// Checks an in-memory counter every few milliseconds: it costs the database nothing.
    func wait(since generation: Int, timeout: Duration) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while self.generation == generation && !isStopping && clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

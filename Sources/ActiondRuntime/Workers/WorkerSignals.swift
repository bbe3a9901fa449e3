import Foundation
import Synchronization

/// What the pool's tasks share: a wake-up generation bumped by notifications, the stop flag
/// set on graceful shutdown, and the idle loops waiting for either.
final class WorkerSignals: Sendable {
    private struct State {
        var generation = 0
        var stopping = false
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    var generation: Int { state.withLock { $0.generation } }
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Wakes every waiting loop.
    func wake() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops the loops: they finish their batch and return.
    func stop() {
        let waiters = state.withLock { state in
            state.stopping = true
            state.generation += 1
            defer { state.waiters.removeAll() }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when woken after `generation` was read, when `timeout` passes, or on stop.
    func wait(since generation: Int, timeout: Duration) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let alreadyWoken = self.state.withLock { state in
                        guard state.generation == generation && !state.stopping else { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if alreadyWoken { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            // Timed out (or cancelled): release the waiter; woken: stop the timer.
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            group.cancelAll()
        }
    }
}

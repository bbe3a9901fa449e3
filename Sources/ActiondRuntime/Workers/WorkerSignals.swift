import Foundation
import Synchronization

/// What the pool's tasks share: a wake-up generation bumped by notifications, the stop flag
/// set on graceful shutdown, and the idle loops waiting for either.
final class WorkerSignals: Sendable {
    private enum Waiter {
        case waiting(CheckedContinuation<Void, Never>)
        /// Resumed, or given up (timed out) before it could register.
        case done
    }

    private struct State {
        var generation = 0
        var stopping = false
        var waiters: [UUID: Waiter] = [:]
    }

    private let state = Mutex(State())

    var generation: Int { state.withLock { $0.generation } }
    var isStopping: Bool { state.withLock { $0.stopping } }
    /// Loops waiting right now.
    var waiting: Int {
        state.withLock { state in
            state.waiters.values.count { if case .waiting = $0 { true } else { false } }
        }
    }

    /// Wakes one waiting loop (a notification is usually one producer's commit: one loop's
    /// claim takes it all; a loop whose claim was full wakes the next). Busy loops see the
    /// new generation and claim again after their batch, so no wake-up is lost.
    func wake() {
        resume(all: false) { _ in }
    }

    /// Wakes every waiting loop (after the listener reconnects: notifications may be lost).
    func wakeAll() {
        resume(all: true) { _ in }
    }

    /// Stops the loops: they finish their batch and return.
    func stop() {
        resume(all: true) { $0.stopping = true }
    }

    private func resume(all: Bool, _ change: (inout State) -> Void) {
        let continuations = state.withLock { state in
            change(&state)
            state.generation += 1
            var continuations: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters {
                if case .waiting(let continuation) = waiter {
                    continuations.append(continuation)
                    state.waiters[id] = .done
                    if !all { break }
                }
            }
            return continuations
        }
        for continuation in continuations { continuation.resume() }
    }

    /// Returns when woken after `generation` was read, when `timeout` passes, or on stop.
    func wait(since generation: Int, timeout: Duration) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let resumeNow = self.state.withLock { state in
                        if case .done = state.waiters[id] {
                            state.waiters[id] = nil  // timed out before registering
                            return true
                        }
                        guard state.generation == generation && !state.stopping else {
                            state.waiters[id] = .done  // resumed at once; the cleanup removes it
                            return true
                        }
                        state.waiters[id] = .waiting(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // Whichever finished first, make the other end: resume a waiting continuation, or
            // mark the id so a continuation that has not registered yet returns at once.
            let pending: CheckedContinuation<Void, Never>? = state.withLock { state in
                switch state.waiters[id] {
                case .waiting(let continuation):
                    state.waiters[id] = nil
                    return continuation
                case .done:
                    state.waiters[id] = nil
                    return nil
                case nil:
                    state.waiters[id] = .done
                    return nil
                }
            }
            pending?.resume()
        }
    }
}

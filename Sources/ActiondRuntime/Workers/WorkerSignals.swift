import Foundation
import Synchronization

/// What the pool's tasks share: a wake-up generation bumped by notifications, the stop flag
/// set on graceful shutdown, and the idle loops waiting for either.
final class WorkerSignals: Sendable {
    private enum Waiter {
        case waiting(CheckedContinuation<Void, Never>)
        /// Resumed at once (the generation had moved), or given up (timed out) before it could register.
        case done
        /// Resumed by a wake-up (`wake`, `wakeAll`, `stop`).
        case woken
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
    /// claim takes it all; a loop whose claim was full wakes the next). Only when no loop
    /// waits does the generation move, so that busy loops claim again after their batch: no
    /// wake-up is lost, and a wake-up an idle loop took does not also send every busy loop
    /// to claim again, mostly to find nothing (at 300 one-event submits a second, over half
    /// the claims came back empty that way).
    func wake() {
        resume(all: false) { _ in }
    }

    /// For a loop woken by a wake-up whose claim, begun at `generation`, found nothing: the
    /// wake-up may have been for an event of a user a busy loop holds, so the busy loops are
    /// told to claim again after their batch (the generation moves). (Only a loop a wake-up
    /// woke passes it on: one that claimed because the generation moved would pass on a
    /// pass-on, and empty claims would feed each other.) Returns the generation to wait
    /// from: the new one, or `generation` itself when a wake-up came since the claim began
    /// (then the wait returns at once and the loop claims again).
    func passOn(since generation: Int) -> Int {
        state.withLock { state in
            guard state.generation == generation else { return generation }
            state.generation += 1
            return state.generation
        }
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
            var continuations: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters {
                if case .waiting(let continuation) = waiter {
                    continuations.append(continuation)
                    state.waiters[id] = .woken
                    if !all { break }
                }
            }
            if all || continuations.isEmpty { state.generation += 1 }
            return continuations
        }
        for continuation in continuations { continuation.resume() }
    }

    /// Returns when woken after `generation` was read, when `timeout` passes, or on stop:
    /// true when a wake-up resumed this wait (false: timed out, or the generation had moved).
    @discardableResult
    func wait(since generation: Int, timeout: Duration) async -> Bool {
        let id = UUID()
        return await withTaskGroup(of: Void.self) { group in
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
            let (pending, woken): (CheckedContinuation<Void, Never>?, Bool) = state.withLock { state in
                switch state.waiters[id] {
                case .waiting(let continuation):
                    state.waiters[id] = nil
                    return (continuation, false)
                case .done:
                    state.waiters[id] = nil
                    return (nil, false)
                case .woken:
                    state.waiters[id] = nil
                    return (nil, true)
                case nil:
                    state.waiters[id] = .done
                    return (nil, false)
                }
            }
            pending?.resume()
            return woken
        }
    }
}

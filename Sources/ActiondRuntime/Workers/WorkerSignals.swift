import Foundation
import PostgresNIO
import Synchronization

/// What the pool's tasks share: a wake-up generation bumped by notifications, the stop flag
/// set on graceful shutdown, the idle loops waiting for either, and how many loops are in a
/// batch (from the start of its claim to its end), which decides whether a notification
/// wakes an idle loop at once (`notified`).
final class WorkerSignals: Sendable {
    /// A loop waiting: resumed by a wake-up, or by its timer on its event loop.
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var timer: Scheduled<Void>?

        /// Ends the wait: the timer (if another end came first) is cancelled.
        func resume() {
            timer?.cancel()
            continuation.resume()
        }
    }

    private struct State {
        var generation = 0
        var stopping = false
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        /// Loops between the start of a claim and the end of its batch.
        var busy = 0
        /// A notification left to the busy loops: the wake-up that `busyWakeDelay` after it
        /// goes to an idle loop unless a claim begins first (nil: none pending).
        var deferredWake: Int?
        var deferredWakes = 0
        /// The timer of the pending deferred wake-up, cancelled when a claim begins first.
        var deferredTimer: Scheduled<Void>?
        /// When the latest batch began.
        var latestBegin: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// How long a notification that arrived during a batch waits for a claim to begin before
    /// it wakes an idle loop.
    let busyWakeDelay: Duration
    /// Where deferred wake-ups are timed (a task scheduled there: no task or timer thread).
    let eventLoop: any EventLoop

    init(busyWakeDelay: Duration = WorkerConfiguration().busyWakeDelay,
         eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()) {
        self.busyWakeDelay = busyWakeDelay
        self.eventLoop = eventLoop
    }

    var generation: Int { state.withLock { $0.generation } }
    var isStopping: Bool { state.withLock { $0.stopping } }
    /// Loops waiting right now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Wakes one waiting loop: a loop whose claim was full recruits the next. Busy loops see
    /// the new generation and claim again after their batch, so no wake-up is lost.
    func wake() {
        resume(all: false) { _ in }
    }

    /// A notification: a producer's commit. With no loop in a batch, it wakes one idle loop
    /// at once (one loop's claim takes it all). While a loop is in a batch, it is left to
    /// that loop, which claims again when its batch ends because the generation moved:
    /// whatever arrives during a batch goes into the next one, together, rather than each
    /// event waking a loop of its own (one-event batches, and claims that find nothing
    /// because another loop took the event first, cost most of a worker's CPU at a steady
    /// trickle; see docs/performance.md). Should no claim begin within `busyWakeDelay` (a
    /// batch that runs long), an idle loop is woken then; and when the latest batch began
    /// longer ago than that, at once. Every notification thus leads to a claim that begins
    /// after it; the delay is the most it can add to an event's latency.
    func notified() {
        let now = ContinuousClock.now
        let (waiter, deferred) = state.withLock { state -> (Waiter?, Int?) in
            state.generation += 1
            if state.busy == 0 || state.latestBegin.map({ $0.duration(to: now) >= busyWakeDelay }) ?? true {
                return (Self.takeWaiter(&state), nil)
            }
            guard state.deferredWake == nil else { return (nil, nil) }
            state.deferredWakes += 1
            state.deferredWake = state.deferredWakes
            return (nil, state.deferredWakes)
        }
        waiter?.resume()
        if let deferred {
            let timer = eventLoop.scheduleTask(in: .nanoseconds(max(0, busyWakeDelay.nanoseconds))) { [self] in
                let waiter = state.withLock { state -> Waiter? in
                    guard state.deferredWake == deferred else { return nil }  // a claim began since
                    state.deferredWake = nil
                    state.deferredTimer = nil
                    return Self.takeWaiter(&state)
                }
                waiter?.resume()
            }
            // Kept so that a claim beginning first cancels it (one timer at a time, not one
            // per notification left running to its end).
            let stale = state.withLock { state -> Bool in
                guard state.deferredWake == deferred else { return true }
                state.deferredTimer = timer
                return false
            }
            if stale { timer.cancel() }
        }
    }

    /// Runs one batch of a loop (`body`: its claim, then its work), busy from the start: a
    /// claim that begins covers every notification so far (its snapshot sees what they
    /// announced), so a deferred wake-up is no longer needed. Should the batch fail, perhaps
    /// before its claim ran, a notification that came since `generation` wakes an idle loop
    /// at once, since this loop now pauses before it claims again.
    func batch<Result>(since generation: Int, _ body: () async throws -> Result) async throws -> Result {
        beginBatch()
        do {
            let result = try await body()
            endBatch(failedSince: nil)
            return result
        } catch {
            endBatch(failedSince: generation)
            throw error
        }
    }

    /// A loop's batch begins (`batch`'s first step).
    func beginBatch() {
        let now = ContinuousClock.now
        let timer = state.withLock { state -> Scheduled<Void>? in
            state.busy += 1
            state.latestBegin = now
            state.deferredWake = nil
            defer { state.deferredTimer = nil }
            return state.deferredTimer
        }
        timer?.cancel()
    }

    /// A loop's batch ends (`batch`'s last step); `failedSince`: the generation read before
    /// a batch that failed.
    func endBatch(failedSince generation: Int?) {
        let waiter = state.withLock { state -> Waiter? in
            state.busy -= 1
            guard let generation, state.generation != generation else { return nil }
            return Self.takeWaiter(&state)
        }
        waiter?.resume()
    }

    /// Loops in a batch right now.
    var busy: Int { state.withLock { $0.busy } }

    /// Takes a waiting loop out of the waiters (any one: which idle loop wakes does not matter).
    private static func takeWaiter(_ state: inout State) -> Waiter? {
        guard let id = state.waiters.keys.first else { return nil }
        return state.waiters.removeValue(forKey: id)
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
        let waiters = state.withLock { state in
            change(&state)
            state.generation += 1
            var waiters: [Waiter] = []
            while let waiter = Self.takeWaiter(&state) {
                waiters.append(waiter)
                if !all { break }
            }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when woken after `generation` was read, when `timeout` passes, or on stop or
    /// cancellation. The timeout is a task scheduled on `eventLoop` (the loop's own, where it
    /// runs), cancelled when a wake-up comes first: a wait makes no task and no timer thread
    /// (a child task sleeping for each wait was a good part of a lightly loaded worker's CPU).
    func wait(since generation: Int, timeout: Duration,
              on eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any()) async {
        // Nothing to wait for: not even a trip through the event loop (which, busy with other
        // connections' reads, could take long).
        guard timeout > .zero else { return }
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waits = state.withLock { state -> Bool in
                    // A cancellation sets the flag before it runs the handler below: seen here
                    // if it came before this registration, or else the handler finds the waiter.
                    guard state.generation == generation && !state.stopping && !Task.isCancelled else { return false }
                    let timer = eventLoop.scheduleTask(in: .nanoseconds(max(0, timeout.nanoseconds))) { [self] in end(id) }
                    state.waiters[id] = Waiter(continuation: continuation, timer: timer)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            end(id)
        }
    }

    /// Ends the wait of `id` if it still waits (its timer fired, or its task was cancelled).
    private func end(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}

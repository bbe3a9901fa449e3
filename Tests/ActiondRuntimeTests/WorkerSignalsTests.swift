@testable import ActiondRuntime
import ActiondTestSupport
import PostgresNIO
import Synchronization
import Testing

@Suite("Worker signals", .timeLimit(.minutes(1)))
struct WorkerSignalsTests {
    @Test func aWaitAlwaysEndsByItsTimeoutEvenWhenItIsZero() async {
        let signals = WorkerSignals()
        for _ in 0..<2000 {
            await signals.wait(since: signals.generation, timeout: .zero)
        }
        let start = ContinuousClock.now
        await signals.wait(since: signals.generation, timeout: .milliseconds(50))
        #expect(start.duration(to: .now) >= .milliseconds(45))
    }

    /// Short timeouts, each timed by a task on an event loop: every wait ends, none early,
    /// and none is left behind among the waiters.
    @Test func shortWaitsEachEndByTheirTimer() async {
        let signals = WorkerSignals()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        for _ in 0..<200 {
            let start = ContinuousClock.now
            await signals.wait(since: signals.generation, timeout: .milliseconds(1), on: loop)
            #expect(start.duration(to: .now) >= .milliseconds(1))
        }
        #expect(signals.waiting == 0)
    }

    /// A waiter cancelled while it waits returns at once, not at its 60 s timeout, and leaves
    /// no waiter counted.
    @Test func aCancelledWaiterReturns() async throws {
        let signals = WorkerSignals()
        let generation = signals.generation
        let task = Task { await signals.wait(since: generation, timeout: .seconds(60)) }
        #expect(try await eventually(10) { signals.waiting == 1 }, "the task is waiting")
        let cancelled = ContinuousClock.now
        task.cancel()
        await task.value
        #expect(cancelled.duration(to: .now) < .seconds(10), "returned on cancellation, not after the 60 s timeout")
        #expect(signals.waiting == 0, "no waiter left behind")
        #expect(signals.generation == generation && !signals.isStopping, "a cancellation is neither a wake-up nor a stop")
    }

    @Test func wakeAndStopEndWaitsAtOnce() async throws {
        let signals = WorkerSignals()
        let generation = signals.generation
        let waiter = Task { await signals.wait(since: generation, timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(20))
        let woken = ContinuousClock.now
        signals.wake()
        await waiter.value
        #expect(woken.duration(to: .now) < .seconds(10), "woken, not timed out after 60 s")
        #expect(signals.generation == generation + 1)

        signals.stop()
        #expect(signals.isStopping)
        await signals.wait(since: signals.generation, timeout: .seconds(60))  // returns at once when stopping
    }

    /// A notification wakes one idle loop, not all of them; a reconnect wakes them all.
    @Test func aWakeUpWakesOneWaiterAndWakeAllEveryOne() async throws {
        let signals = WorkerSignals()
        let (waiters, ended) = try await Self.idleLoops(3, of: signals)
        signals.wake()
        while ended.value < 1 { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(ended.value == 1, "one of three idle loops woken")
        #expect(signals.waiting == 2)

        signals.wakeAll()
        for waiter in waiters { await waiter.value }
        #expect(ended.value == 3)
    }

    /// With no loop in a batch, a notification wakes an idle loop at once.
    @Test func aNotificationWakesAnIdleLoopAtOnceWhenNoLoopIsBusy() async throws {
        let signals = WorkerSignals(busyWakeDelay: .seconds(3600))
        let generation = signals.generation
        let waiter = Waiter(signals, since: generation)
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        signals.notified()
        #expect(await waiter.woken, "woken, not timed out")
        #expect(signals.generation == generation + 1)
    }

    /// During a batch, a notification is left to the busy loop (the generation moves, so it
    /// claims again when its batch ends): the idle loop sleeps on, and a claim that begins
    /// meanwhile takes the pending wake-up away for good.
    @Test func aNotificationDuringABatchIsLeftToTheNextClaim() async throws {
        let signals = WorkerSignals(busyWakeDelay: .milliseconds(500))
        let (waiters, ended) = try await Self.idleLoops(1, of: signals)
        let generation = signals.generation
        signals.beginBatch()  // a loop's batch, just begun
        signals.notified()
        #expect(signals.generation == generation + 1, "the busy loop sees the notification")
        #expect(signals.waiting == 1, "the idle loop is not woken at once")
        signals.beginBatch()  // another claim begins: it covers the notification
        try await Task.sleep(for: .milliseconds(800))
        #expect(ended.value == 0, "the idle loop was not woken")
        #expect(signals.waiting == 1)
        signals.endBatch(failedSince: nil)
        signals.endBatch(failedSince: nil)
        #expect(signals.busy == 0)
        try await Task.sleep(for: .milliseconds(300))
        #expect(ended.value == 0, "a batch's end wakes no one by itself")
        signals.wakeAll()
        for waiter in waiters { await waiter.value }
    }

    /// A batch that runs long does not hold a notification: with no claim begun within the
    /// delay, it wakes one idle loop (one, however many notifications came meanwhile).
    @Test func aNotificationDuringALongBatchWakesAnIdleLoopAfterTheDelay() async throws {
        let signals = WorkerSignals(busyWakeDelay: .milliseconds(300))
        let (waiters, ended) = try await Self.idleLoops(2, of: signals)
        signals.beginBatch()
        let notified = ContinuousClock.now
        signals.notified()
        signals.notified()
        #expect(signals.waiting == 2, "not woken at once")
        while ended.value < 1 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(notified.duration(to: .now) >= .milliseconds(290), "not before the delay")
        try await Task.sleep(for: .milliseconds(300))
        #expect(ended.value == 1 && signals.waiting == 1, "one idle loop woken")
        signals.wakeAll()
        for waiter in waiters { await waiter.value }
        signals.endBatch(failedSince: nil)
    }

    /// When the latest batch began longer ago than the delay, a notification does not wait
    /// for it: an idle loop is woken at once.
    @Test func aNotificationWhenTheLatestBatchBeganLongAgoWakesAnIdleLoopAtOnce() async throws {
        let signals = WorkerSignals(busyWakeDelay: .milliseconds(200))
        signals.beginBatch()
        try await Task.sleep(for: .milliseconds(300))  // the batch began longer ago than the delay
        let waiter = Waiter(signals, since: signals.generation)
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        signals.notified()
        // Taken within the call: a deferred wake-up would leave it waiting for 200 ms.
        #expect(signals.waiting == 0, "woken at once, not after the delay")
        #expect(await waiter.woken)
        signals.endBatch(failedSince: nil)
    }

    /// A batch that fails (perhaps before its claim ran) passes on a notification that came
    /// during it: an idle loop is woken at once, and the loop is no longer counted busy.
    @Test func aFailedBatchPassesOnANotificationItMayNotHaveCovered() async throws {
        let signals = WorkerSignals(busyWakeDelay: .seconds(3600))
        let generation = signals.generation
        let waiter = Waiter(signals, since: generation)
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: Refused.self) {
            try await signals.batch(since: generation) {
                signals.notified()  // during the batch: left to it
                throw Refused()
            }
        }
        #expect(await waiter.woken, "the notification was passed on")
        #expect(signals.busy == 0)
        // A batch that succeeds is counted out too.
        _ = try await signals.batch(since: signals.generation) { 1 }
        #expect(signals.busy == 0)
    }

    /// A loop whose claim was full recruits an idle one at once, busy or not.
    @Test func aFullClaimRecruitsAnIdleLoopEvenDuringABatch() async throws {
        let signals = WorkerSignals(busyWakeDelay: .seconds(3600))
        signals.beginBatch()
        let waiter = Waiter(signals, since: signals.generation)
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        signals.wake()
        #expect(await waiter.woken)
        signals.endBatch(failedSince: nil)
    }
}

extension WorkerSignalsTests {
    /// `count` idle loops waiting (at most 20 s) since the current generation, and how many
    /// of them have been woken so far.
    fileprivate static func idleLoops(_ count: Int, of signals: WorkerSignals) async throws -> ([Task<Void, Never>], Counter) {
        let ended = Counter()
        let generation = signals.generation
        let waiters = (0..<count).map { _ in
            Task {
                await signals.wait(since: generation, timeout: .seconds(20))
                ended.add()
            }
        }
        while signals.waiting < count { try await Task.sleep(for: .milliseconds(5)) }
        return (waiters, ended)
    }
}

private struct Refused: Error {}

/// An idle loop waiting for a wake-up (at most 20 s, so that a wake-up that never comes
/// fails the test instead of hanging the run).
private struct Waiter {
    let task: Task<Bool, Never>

    init(_ signals: WorkerSignals, since generation: Int) {
        task = Task {
            let start = ContinuousClock.now
            await signals.wait(since: generation, timeout: .seconds(20))
            return start.duration(to: .now) < .seconds(15)
        }
    }

    /// Whether the wait ended by a wake-up rather than its timeout.
    var woken: Bool { get async { await task.value } }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

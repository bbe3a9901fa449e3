@testable import ActiondRuntime
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

    @Test func aCancelledWaiterReturns() async {
        let signals = WorkerSignals()
        let task = Task { await signals.wait(since: signals.generation, timeout: .seconds(60)) }
        task.cancel()
        await task.value
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
        let ended = Counter()
        let generation = signals.generation
        let waiters = (0..<3).map { _ in
            Task {
                await signals.wait(since: generation, timeout: .seconds(60))
                ended.add()
            }
        }
        while signals.waiting < 3 { try await Task.sleep(for: .milliseconds(5)) }
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
        let waiter = Task { await signals.wait(since: generation, timeout: .seconds(3600)) }
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        signals.notified()
        await waiter.value
        #expect(signals.generation == generation + 1)
    }

    /// During a batch, a notification is left to the busy loop (the generation moves, so it
    /// claims again when its batch ends): the idle loop sleeps on, and a claim that begins
    /// meanwhile takes the pending wake-up away for good.
    @Test func aNotificationDuringABatchIsLeftToTheNextClaim() async throws {
        let signals = WorkerSignals(busyWakeDelay: .milliseconds(100))
        let ended = Counter()
        signals.beginBatch()
        let generation = signals.generation
        let waiter = Task {
            await signals.wait(since: generation, timeout: .seconds(3600))
            ended.add()
        }
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        signals.notified()
        #expect(signals.generation == generation + 1, "the busy loop sees the notification")
        signals.beginBatch()  // a claim begins: it covers the notification
        try await Task.sleep(for: .milliseconds(600))
        #expect(ended.value == 0, "the idle loop was not woken")
        #expect(signals.waiting == 1)
        signals.endBatch()
        signals.endBatch()
        try await Task.sleep(for: .milliseconds(300))
        #expect(ended.value == 0, "a batch's end wakes no one by itself")
        signals.wakeAll()
        await waiter.value
    }

    /// A batch that runs long does not hold a notification: with no claim begun within the
    /// delay, it wakes an idle loop.
    @Test func aNotificationDuringALongBatchWakesAnIdleLoopAfterTheDelay() async throws {
        let signals = WorkerSignals(busyWakeDelay: .milliseconds(100))
        signals.beginBatch()
        let generation = signals.generation
        let waiter = Task { await signals.wait(since: generation, timeout: .seconds(3600)) }
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let notified = ContinuousClock.now
        signals.notified()
        signals.notified()  // a second one while the first waits: still one wake-up
        await waiter.value
        #expect(notified.duration(to: .now) >= .milliseconds(95), "not before the delay")
        #expect(signals.waiting == 0)
    }

    /// A loop whose claim was full recruits an idle one at once, busy or not.
    @Test func aFullClaimRecruitsAnIdleLoopEvenDuringABatch() async throws {
        let signals = WorkerSignals(busyWakeDelay: .seconds(3600))
        signals.beginBatch()
        let generation = signals.generation
        let waiter = Task { await signals.wait(since: generation, timeout: .seconds(3600)) }
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        signals.wake()
        await waiter.value
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

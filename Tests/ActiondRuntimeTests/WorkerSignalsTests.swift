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
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

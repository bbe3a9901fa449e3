@testable import ActiondRuntime
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
        #expect(woken.duration(to: .now) < .seconds(1))
        #expect(signals.generation == generation + 1)

        signals.stop()
        #expect(signals.isStopping)
        await signals.wait(since: signals.generation, timeout: .seconds(60))  // returns at once when stopping
    }
}

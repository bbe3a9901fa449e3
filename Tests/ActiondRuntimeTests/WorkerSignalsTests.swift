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
        let woken = await signals.wait(since: signals.generation, timeout: .milliseconds(50))
        #expect(start.duration(to: .now) >= .milliseconds(45))
        #expect(!woken, "timed out, not woken")
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
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let woken = ContinuousClock.now
        signals.wake()
        #expect(await waiter.value, "resumed by the wake-up")
        #expect(woken.duration(to: .now) < .seconds(10), "woken, not timed out after 60 s")
        #expect(signals.generation == generation, "the idle loop took the wake-up: busy loops need not claim again")

        // No loop waiting: the wake-up moves the generation, so a busy loop, which read the
        // one before, does not wait after its batch but claims again.
        signals.wake()
        #expect(signals.generation == generation + 1)
        let busyLoop = ContinuousClock.now
        await signals.wait(since: generation, timeout: .seconds(60))
        #expect(busyLoop.duration(to: .now) < .seconds(10), "returned at once")

        signals.stop()
        #expect(signals.isStopping)
        await signals.wait(since: signals.generation, timeout: .seconds(60))  // returns at once when stopping
    }

    /// A loop whose claim found nothing passes the wake-up on to the busy loops (they read the
    /// generation before their batch and so claim again after it), and then waits itself;
    /// when a wake-up came during its claim, its wait returns at once instead.
    @Test func anEmptyClaimPassesTheWakeUpOnToBusyLoops() async throws {
        let signals = WorkerSignals()
        let busy = signals.generation  // a busy loop's, read before its batch
        let idle = signals.generation  // the idle loop's, read before its empty claim
        let waitFrom = signals.passOn(since: idle)
        #expect(signals.generation == busy + 1, "the busy loop will claim again")
        let waiter = Task { await signals.wait(since: waitFrom, timeout: .seconds(60)) }
        // It registers and waits (a wait that returned at once would never count as waiting).
        while signals.waiting < 1 { try await Task.sleep(for: .milliseconds(5)) }
        signals.wake()
        await waiter.value
        #expect(signals.waiting == 0)

        // A wake-up during the claim (no loop waiting to take it): claim again at once.
        let during = signals.generation
        signals.wake()
        let again = signals.passOn(since: during)
        #expect(again == during)
        let start = ContinuousClock.now
        #expect(await signals.wait(since: again, timeout: .seconds(60)) == false, "the generation had moved: not a wake-up of its own")
        #expect(start.duration(to: .now) < .seconds(10))
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

import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `body`, but gives up with `ConnectionClosedError` as soon as this connection is
    /// closed (the server restarted, the network dropped). With `closeOnCancel`, cancelling the
    /// calling task closes the connection (rolling back an open transaction) and returns once
    /// it is closed; without, cancellation only reaches `body` (enough for a LISTEN loop).
    ///
    /// Why: in postgres-nio 1.33.2 a query written to a connection whose channel has already
    /// closed is never completed (the write fails with `promise: nil`, so the query's promise is
    /// left pending), and awaiting a query ignores task cancellation. Seen here: a worker's loop
    /// hung forever after PostgreSQL restarted between two statements of its transaction. The
    /// body runs in an unstructured task so that we can walk away from such a query; a watchdog
    /// looks at the connection every 100 ms while the body runs.
    package func failingWhenClosed<Result: Sendable>(
        closeOnCancel: Bool = true,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        guard !isClosed else { throw ConnectionClosedError() }
        let finished = Once()
        // `finished` holds the body's task and the cancel handler, both of which hold
        // `finished`: let go of them once this call is over, or every call leaks its task
        // (seen: about 15 KB per batch, the worker's RSS growing by 40 MiB over a long drain).
        defer { finished.release() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let resume: @Sendable (Swift.Result<Result, any Error>) -> Bool = { result in
                    let first = finished.claim()
                    if first { continuation.resume(with: result) }
                    return first
                }
                // On this connection's event loop: see EventLoopTaskExecutor.
                let work = Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
                    do { _ = resume(.success(try await body())) } catch { _ = resume(.failure(error)) }
                }
                // The body runs in a task of its own, which does not inherit this task's
                // cancellation: a cancellation that came before the task existed (the caller
                // already cancelled on entry, or cancelled while it was being made) must be
                // passed on here, or a body that waits until cancelled (LISTEN) never returns.
                // Seen: a worker group that never finished shutting down in a loaded test run.
                if finished.start(work) { work.cancel() }
                Task { [self] in
                    while !finished.isDone {
                        if isClosed {
                            // Cancel the body before resuming: once resumed, `release` may
                            // already have let go of it.
                            let work = finished.work
                            if resume(.failure(ConnectionClosedError())) { work?.cancel() }
                            return
                        }
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
                guard closeOnCancel else { return }
                let cancel: @Sendable () -> Void = { [self] in
                    // Queries ignore cancellation; closing the connection ends them and rolls
                    // back. Resume only once closed, so the pool never lends it out half-closed.
                    let closing: EventLoopFuture<Void> = self.close()
                    closing.whenComplete { _ in _ = resume(.failure(CancellationError())) }
                }
                finished.onCancel = cancel
                if finished.cancelled { cancel() }
            }
        } onCancel: {
            finished.cancel()
        }
    }
}

/// Resumes a continuation once, and remembers a cancellation that came before the
/// continuation existed.
private final class Once: Sendable {
    private let done = Atomic<Bool>(false)
    private let state = Mutex<(cancelled: Bool, onCancel: (@Sendable () -> Void)?, work: Task<Void, Never>?)>((false, nil, nil))

    /// The task running the body.
    var work: Task<Void, Never>? { state.withLock { $0.work } }

    /// Records the task running the body; true when a cancellation came first (the caller
    /// then cancels the task: `cancel()` found no task to cancel).
    func start(_ work: Task<Void, Never>) -> Bool {
        state.withLock { state in
            state.work = work
            return state.cancelled
        }
    }

    var isDone: Bool { done.load(ordering: .acquiring) }
    func claim() -> Bool { !done.exchange(true, ordering: .acquiringAndReleasing) }

    var cancelled: Bool { state.withLock { $0.cancelled } }
    var onCancel: (@Sendable () -> Void)? {
        get { state.withLock { $0.onCancel } }
        set { state.withLock { $0.onCancel = newValue } }
    }

    /// Lets go of the body's task and the cancel handler (which refer back to this object).
    func release() {
        state.withLock { state in
            state.onCancel = nil
            state.work = nil
        }
    }

    /// Cancels the body's task, if it exists yet, and runs the cancel handler.
    func cancel() {
        let (handler, work) = state.withLock { state in
            state.cancelled = true
            return (state.onCancel, state.work)
        }
        work?.cancel()
        handler?()
    }
}

/// The connection closed under a statement: nothing of its transaction was committed.
package struct ConnectionClosedError: Error, CustomStringConvertible {
    package var description: String { "the database connection closed (server restart or network failure)" }
}

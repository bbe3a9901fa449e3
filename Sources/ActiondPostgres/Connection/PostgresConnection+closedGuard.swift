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
                finished.work = Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
                    do { _ = resume(.success(try await body())) } catch { _ = resume(.failure(error)) }
                }
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
            finished.work?.cancel()
        }
    }
}

/// Resumes a continuation once, and remembers a cancellation that came before the
/// continuation existed.
private final class Once: Sendable {
    private let done = Atomic<Bool>(false)
    private let state = Mutex<(cancelled: Bool, onCancel: (@Sendable () -> Void)?)>((false, nil))
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// The task running the body.
    var work: Task<Void, Never>? {
        get { task.withLock { $0 } }
        set { task.withLock { $0 = newValue } }
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
        state.withLock { $0.onCancel = nil }
        task.withLock { $0 = nil }
    }

    func cancel() {
        let handler = state.withLock { state in
            state.cancelled = true
            return state.onCancel
        }
        handler?()
    }
}

/// The connection closed under a statement: nothing of its transaction was committed.
package struct ConnectionClosedError: Error, CustomStringConvertible {
    package var description: String { "the database connection closed (server restart or network failure)" }
}

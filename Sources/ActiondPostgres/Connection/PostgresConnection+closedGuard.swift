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
    /// body runs in an unstructured task so that we can walk away from such a query; the connection's
    /// watch (`ClosedWatch`, told by the channel's close future) fails the call when it closes.
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
                    let result: Swift.Result<Result, any Error>
                    do { result = .success(try await body()) } catch { result = .failure(error) }
                    // Cancelled with closeOnCancel: the close's completion resumes the call, so
                    // that it returns only once the connection is closed, whatever the body did
                    // meanwhile (seen: a body that ended at the cancellation returned the call
                    // while the connection was still closing).
                    if closeOnCancel && finished.cancelled { return }
                    _ = resume(result)
                }
                // The body runs in a task of its own, which does not inherit this task's
                // cancellation: a cancellation that came before the task existed (the caller
                // already cancelled on entry, or cancelled while it was being made) must be
                // passed on here, or a body that waits until cancelled (LISTEN) never returns.
                // Seen: a worker group that never finished shutting down in a loaded test run.
                if finished.start(work) { work.cancel() }
                // Failed as soon as the connection closes: one watch per connection, told of
                // the close by its channel, so a batch makes no timer and wakes no thread.
                let watch = ClosedWatch.of(self)
                let token = watch.add { [finished] in
                    // Cancel the body before resuming: once resumed, `release` may already
                    // have let go of it. A close this call's own cancellation made (the
                    // watch hears of it before the cancel handler's callback) is reported as
                    // the cancellation it is.
                    let work = finished.work
                    let error: any Error = closeOnCancel && finished.cancelled ? CancellationError() : ConnectionClosedError()
                    if resume(.failure(error)) { work?.cancel() }
                }
                finished.onFinish = { watch.remove(token) }
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
    private let state = Mutex<(cancelled: Bool, onCancel: (@Sendable () -> Void)?, onFinish: (@Sendable () -> Void)?, work: Task<Void, Never>?)>(
        (false, nil, nil, nil))

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

    func claim() -> Bool { !done.exchange(true, ordering: .acquiringAndReleasing) }

    var cancelled: Bool { state.withLock { $0.cancelled } }
    var onCancel: (@Sendable () -> Void)? {
        get { state.withLock { $0.onCancel } }
        set { state.withLock { $0.onCancel = newValue } }
    }
    /// Run once by `release` (the watch forgets this call).
    var onFinish: (@Sendable () -> Void)? {
        get { state.withLock { $0.onFinish } }
        set { state.withLock { $0.onFinish = newValue } }
    }

    /// Lets go of the body's task and the handlers (which refer back to this object), and
    /// runs the finish handler.
    func release() {
        let finish = state.withLock { state in
            state.onCancel = nil
            state.work = nil
            defer { state.onFinish = nil }
            return state.onFinish
        }
        finish?()
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

/// What runs when a connection closes: the failure handlers of the calls guarding it now. One
/// per open connection, made by its first guarded call and registered once on its channel's
/// close future (a callback per call would pile up on that future for the connection's whole
/// life), and forgotten when it fires.
package final class ClosedWatch: Sendable {
    private let closeFuture: EventLoopFuture<Void>
    private let handlers = Mutex<(next: Int, closed: Bool, waiting: [Int: @Sendable () -> Void])>((0, false, [:]))

    private init(closeFuture: EventLoopFuture<Void>) { self.closeFuture = closeFuture }

    /// The open connections' watches, by connection. The close future tells an entry apart
    /// from one left by an earlier connection at the same address (an entry goes when its
    /// connection closes, and a connection is always closed before it is freed).
    private static let watches = Mutex<[ObjectIdentifier: ClosedWatch]>([:])

    /// The watch of `connection`, made and registered on its close future on first use.
    static func of(_ connection: PostgresConnection) -> ClosedWatch {
        let key = ObjectIdentifier(connection)
        let future = connection.closeFuture
        let (watch, made) = watches.withLock { watches -> (ClosedWatch, Bool) in
            if let watch = watches[key], watch.closeFuture === future { return (watch, false) }
            let watch = ClosedWatch(closeFuture: future)
            watches[key] = watch
            return (watch, true)
        }
        if made {
            future.whenComplete { _ in
                watches.withLock { watches in
                    if watches[key] === watch { watches[key] = nil }
                }
                watch.fire()
            }
        }
        return watch
    }

    /// Adds a handler, run at once when the connection has already closed; returns its token.
    func add(_ handler: @escaping @Sendable () -> Void) -> Int {
        let (token, closed) = handlers.withLock { state -> (Int, Bool) in
            state.next += 1
            if !state.closed { state.waiting[state.next] = handler }
            return (state.next, state.closed)
        }
        if closed { handler() }
        return token
    }

    /// How many guarded calls on `connection` wait for its close now (0 once they finished).
    package static func waitingCalls(on connection: PostgresConnection) -> Int {
        let watch = watches.withLock { $0[ObjectIdentifier(connection)] }
        guard let watch, watch.closeFuture === connection.closeFuture else { return 0 }
        return watch.handlers.withLock { $0.waiting.count }
    }

    /// Removes the handler of `token` (its call finished).
    func remove(_ token: Int) {
        handlers.withLock { _ = $0.waiting.removeValue(forKey: token) }
    }

    private func fire() {
        let waiting = handlers.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return state.waiting
        }
        for handler in waiting.values { handler() }
    }
}

/// The connection closed under a statement: nothing of its transaction was committed.
package struct ConnectionClosedError: Error, CustomStringConvertible {
    package var description: String { "the database connection closed (server restart or network failure)" }
}

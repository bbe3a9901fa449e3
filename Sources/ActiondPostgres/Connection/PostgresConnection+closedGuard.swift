import PostgresNIO
import Synchronization

extension PostgresConnection {
    /// Runs `body`, but gives up with `ConnectionClosedError` as soon as this connection is
    /// closed (the server restarted, the network dropped).
    ///
    /// Why: in postgres-nio 1.33.2 a query written to a connection whose channel has already
    /// closed is never completed (the write fails with `promise: nil`, so the query's promise is
    /// left pending), and awaiting it ignores cancellation. Seen here: a worker's loop hung
    /// forever after PostgreSQL restarted between two statements of its transaction. The body
    /// runs in an unstructured task so that we can walk away from such a query; a watchdog
    /// looks at the connection every 100 ms while the body runs.
    package func failingWhenClosed<Result: Sendable>(
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        guard !isClosed else { throw ConnectionClosedError() }
        let finished = Once()
        return try await withCheckedThrowingContinuation { continuation in
            let resume: @Sendable (Swift.Result<Result, any Error>) -> Bool = { result in
                let first = finished.claim()
                if first { continuation.resume(with: result) }
                return first
            }
            let work = Task {
                do { _ = resume(.success(try await body())) } catch { _ = resume(.failure(error)) }
            }
            Task { [self] in
                while !finished.isDone {
                    if isClosed {
                        if resume(.failure(ConnectionClosedError())) { work.cancel() }
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }
}

/// True once, for the first caller of `claim()`.
private final class Once: Sendable {
    private let done = Atomic<Bool>(false)
    var isDone: Bool { done.load(ordering: .acquiring) }
    func claim() -> Bool { !done.exchange(true, ordering: .acquiringAndReleasing) }
}

/// The connection closed under a statement: nothing of its transaction was committed.
public struct ConnectionClosedError: Error, CustomStringConvertible {
    public var description: String { "the database connection closed (server restart or network failure)" }
}

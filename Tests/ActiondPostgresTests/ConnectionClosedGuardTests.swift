import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// `PostgresConnection.failingWhenClosed`, which runs a body in a task of its own: a
/// cancellation of the caller must reach that task however early it comes, or a body that
/// waits until cancelled (the wake-up listener's LISTEN) keeps a worker group from ever
/// finishing its shutdown.
@Suite("Connection closed guard")
struct ConnectionClosedGuardTests {
    /// The caller is cancelled before the guard starts its body's task (as when a shutdown
    /// comes while the listener leases its connection): the body is cancelled all the same.
    @Test(arguments: [false, true])
    func aCancellationBeforeTheBodyStartsReachesTheBody(closeOnCancel: Bool) async throws {
        try await TestDatabase.with { db in
            let ended = Mutex<String?>(nil)
            let leased = Mutex(false)
            let call = Task {
                try await db.client.withConnection { connection in
                    leased.withLock { $0 = true }
                    withUnsafeCurrentTask { $0?.cancel() }
                    do {
                        try await connection.failingWhenClosed(closeOnCancel: closeOnCancel) {
                            try await Task.sleep(for: .seconds(3600))
                        }
                        ended.withLock { $0 = "returned" }
                    } catch {
                        ended.withLock { $0 = "threw \(type(of: error))" }
                    }
                }
            }
            // Not `await call.value`: before the fix the call never returned, and the test
            // must fail rather than hang. The 30 s count from the lease: leasing a connection
            // took longer than that once, on a 2-core machine running the whole suite.
            let leaseDeadline = ContinuousClock.now + .seconds(120)
            while !leased.withLock({ $0 }) && ContinuousClock.now < leaseDeadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(leased.withLock { $0 }, "no connection leased in 120 s")
            let deadline = ContinuousClock.now + .seconds(30)
            while ended.withLock({ $0 }) == nil && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(ended.withLock { $0 } == "threw CancellationError")
            if ended.withLock({ $0 }) != nil { _ = try? await call.value }
        }
    }

    /// The ordinary case: cancelled while the body runs. With `closeOnCancel`, the call closes
    /// the connection and reports the cancellation, not the close it made (the connection's
    /// watch hears of that close first).
    @Test(arguments: [false, true])
    func aCancellationWhileTheBodyRunsReachesTheBody(closeOnCancel: Bool) async throws {
        try await TestDatabase.with { db in
            let ended = Mutex<String?>(nil)
            let started = Mutex<PostgresConnection?>(nil)
            let call = Task {
                try await db.client.withConnection { connection in
                    do {
                        try await connection.failingWhenClosed(closeOnCancel: closeOnCancel) {
                            started.withLock { $0 = connection }
                            try await Task.sleep(for: .seconds(3600))
                        }
                        ended.withLock { $0 = "returned" }
                    } catch {
                        ended.withLock { $0 = "threw \(type(of: error))" }
                    }
                }
            }
            // As above, the counts from the body's start: in a full run on 2 cores, leasing the
            // connection once took longer than the 30 s this test gave the lease and the body's
            // end together, and it was cancelled before its body began.
            let connection = try await Self.guarded { started.withLock { $0 } }
            call.cancel()
            let deadline = ContinuousClock.now + .seconds(30)
            while ended.withLock({ $0 }) == nil && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(ended.withLock { $0 } == "threw CancellationError")
            #expect(connection.isClosed == closeOnCancel)
            if ended.withLock({ $0 }) != nil { _ = try? await call.value }
        }
    }

    /// The connection closes under a body that would never end on its own (as a query written
    /// to a closed channel never completes): the call fails with `ConnectionClosedError` once
    /// the channel tells of the close, a call on the closed connection fails at once, and
    /// calls that finished leave nothing waiting on the connection's watch.
    @Test func aCloseUnderTheBodyFailsTheCallAndFinishedCallsLeaveNothingBehind() async throws {
        try await TestDatabase.with { db in
            let ended = Mutex<String?>(nil)
            let started = Mutex<PostgresConnection?>(nil)
            let call = Task {
                try await db.client.withConnection { connection in
                    // Calls that finish, one after another, as a worker's batches do.
                    for _ in 0..<50 {
                        _ = try await connection.failingWhenClosed { [logger = db.logger] in
                            try await connection.query("SELECT 1", logger: logger).collect().count
                        }
                    }
                    #expect(ClosedWatch.waitingCalls(on: connection) == 0)
                    do {
                        try await connection.failingWhenClosed(closeOnCancel: false) {
                            started.withLock { $0 = connection }
                            try await Task.sleep(for: .seconds(3600))
                        }
                        ended.withLock { $0 = "returned" }
                    } catch {
                        ended.withLock { $0 = "threw \(type(of: error))" }
                    }
                    do {
                        try await connection.failingWhenClosed { }
                        ended.withLock { $0! += "; the next call returned" }
                    } catch {
                        ended.withLock { $0! += "; the next call threw \(type(of: error))" }
                    }
                }
            }
            let connection = try await Self.guarded { started.withLock { $0 } }
            #expect(ClosedWatch.waitingCalls(on: connection) == 1)
            try await connection.close()
            let deadline = ContinuousClock.now + .seconds(30)
            while !(ended.withLock({ $0 })?.contains("next") ?? false) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(ended.withLock { $0 } == "threw ConnectionClosedError; the next call threw ConnectionClosedError")
            if ended.withLock({ $0 }) != nil { _ = try? await call.value } else { call.cancel() }
        }
    }

    /// The connection whose guarded body has started (`started`: what the body set), once the
    /// call has registered with the connection's watch (just after it makes the body's task).
    static func guarded(_ started: () -> PostgresConnection?) async throws -> PostgresConnection {
        let startDeadline = ContinuousClock.now + .seconds(120)
        while started() == nil && ContinuousClock.now < startDeadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let connection = try #require(started(), "the body did not start in 120 s")
        let registered = ContinuousClock.now + .seconds(30)
        while ClosedWatch.waitingCalls(on: connection) != 1 && ContinuousClock.now < registered {
            try await Task.sleep(for: .milliseconds(10))
        }
        return connection
    }
}

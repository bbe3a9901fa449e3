import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ends a test run that stopped making progress, with a message, instead of letting it hang.
///
/// Per-suite time limits cancel a stuck test's task, but a task waiting on something that
/// ignores cancellation (a wedged connection pool, a continuation never resumed) never ends,
/// and the whole run then waits for it. The watchdog is a plain thread, outside the Swift
/// concurrency pool that may be the stuck part: once the test process has run longer than
/// `ACTIOND_TEST_TIME_LIMIT_MINUTES` (default 12), it prints the test databases still open
/// (which test opened them, and since when) and the `actiond` children still running, kills
/// those children, and exits with status 124, as `timeout` does, so a CI script can tell a
/// hang from a failure. A limit of 0 turns it off (a team's long suite).
package enum TestWatchdog {
    private struct Open {
        var description: String
        var since: Date
    }

    private static let state = Mutex<(armed: Bool, next: Int, open: [Int: Open], children: [Int32: String])>(
        (false, 0, [:], [:]))

    /// Starts the watchdog (once per process).
    package static func arm() {
        let start = ProcessInfo.processInfo.systemUptime
        let first = state.withLock { state -> Bool in
            defer { state.armed = true }
            return !state.armed
        }
        guard first else { return }
        let minutes = Double(ProcessInfo.processInfo.environment["ACTIOND_TEST_TIME_LIMIT_MINUTES"] ?? "") ?? 12
        guard minutes > 0 else { return }
        let thread = Thread {
            let limit = minutes * 60
            while ProcessInfo.processInfo.systemUptime - start < limit { sleep(5) }
            expire(after: minutes)
        }
        thread.name = "actiond test watchdog"
        thread.start()
    }

    /// Records what is open while `body` runs (a test database, with the test that opened it).
    package static func tracking<Result>(_ description: String, _ body: () async throws -> Result) async rethrows -> Result {
        arm()
        let token = state.withLock { state -> Int in
            state.next += 1
            state.open[state.next] = Open(description: description, since: Date())
            return state.next
        }
        defer { _ = state.withLock { $0.open.removeValue(forKey: token) } }
        return try await body()
    }

    /// Records a child process until it is reaped.
    package static func started(_ pid: Int32, _ command: String) {
        arm()
        state.withLock { $0.children[pid] = command }
    }

    package static func reaped(_ pid: Int32) {
        _ = state.withLock { $0.children.removeValue(forKey: pid) }
    }

    private static func expire(after minutes: Double) -> Never {
        let (open, children) = state.withLock { ($0.open.values.sorted { $0.since < $1.since }, $0.children) }
        var lines = ["actiond tests: the test process has run for \(minutes.formatted()) minutes (ACTIOND_TEST_TIME_LIMIT_MINUTES) and is stopped as hung."]
        lines.append(open.isEmpty ? "No test database is open." : "Test databases still open:")
        for item in open { lines.append("  \(item.description), open for \(Int(Date().timeIntervalSince(item.since))) s") }
        for (pid, command) in children.sorted(by: { $0.key < $1.key }) {
            lines.append("  child \(pid) still running: \(command); killed")
            kill(pid, SIGKILL)
        }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        _exit(124)
    }
}

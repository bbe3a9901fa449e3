import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs programs and collects their output.
///
/// Written on posix_spawn and waitpid rather than Foundation's `Process`, whose
/// `waitUntilExit` was seen here never to reap a child when called from a Swift concurrency
/// thread. Output goes to temporary files rather than pipes: `pg_ctl start` leaves a server
/// running that could inherit a pipe's write end, and reading to its end would then hang.
package enum ProcessRunner {
    package struct Output: Sendable {
        package var status: Int32
        package var standardOutput: String
        package var standardError: String
        /// Both streams, standard output first.
        package var output: String { standardOutput + standardError }
    }

    /// A started child process.
    package struct Child: Sendable {
        package let pid: pid_t
        let files: (input: String, output: String, error: String)

        /// What the child has written to standard error so far (it may still be running).
        package var standardErrorSoFar: String {
            (try? String(contentsOfFile: files.error, encoding: .utf8)) ?? ""
        }

        /// Sends `signal` (SIGTERM, SIGKILL…).
        package func send(_ signal: Int32) {
            kill(pid, signal)
        }

        /// Blocks until the child exits.
        package func wait() throws -> Output {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else { throw EmbeddedClusterError(.commandFailed, "waitpid failed: errno \(errno)") }
            }
            return collect(status)
        }

        /// Waits without blocking a thread, looking every few milliseconds. Cancelled (a test's
        /// time limit, a shutdown), it kills the child and reaps it first: a stuck child never
        /// outlives the task that waits for it.
        package func exit() async throws -> Output {
            var status: Int32 = 0
            while true {
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid { return collect(status) }
                if result < 0 && errno != EINTR { throw EmbeddedClusterError(.commandFailed, "waitpid failed: errno \(errno)") }
                do {
                    try await Task.sleep(for: .milliseconds(10))
                } catch {
                    kill(pid, SIGKILL)
                    _ = try? wait()
                    throw error
                }
            }
        }

        package func collect(_ status: Int32) -> Output {
            defer { for path in [files.input, files.output, files.error] { unlink(path) } }
            // WIFEXITED / WEXITSTATUS, which Swift does not import (they are macros).
            let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            return Output(
                status: exitStatus,
                standardOutput: (try? String(contentsOfFile: files.output, encoding: .utf8)) ?? "",
                standardError: (try? String(contentsOfFile: files.error, encoding: .utf8)) ?? "")
        }
    }

    /// Runs `executable` to completion (see `spawn`).
    package static func run(
        _ executable: URL, _ arguments: [String],
        environment: [String: String?] = [:], input: String? = nil
    ) throws -> Output {
        try spawn(executable, arguments, environment: environment, input: input).wait()
    }

    /// Closes every descriptor above standard error in the child, so that a server it leaves
    /// running (`pg_ctl start`) holds none of this process's pipes or sockets open. glibc has
    /// `posix_spawn_file_actions_addclosefrom_np` since 2.34, but Swift's Glibc module does not
    /// import it (it is behind _GNU_SOURCE), so it is looked up by name; without it, nothing.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = addCloseFrom else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
    }

    nonisolated(unsafe) private static let addCloseFrom: UnsafeMutableRawPointer? = {
        #if os(Linux)
        return dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        #else
        return nil
        #endif
    }()

    /// Starts `executable`; `input` is written to its standard input; `environment` entries are
    /// added to (or, with a nil value, removed from) this process's environment.
    package static func spawn(
        _ executable: URL, _ arguments: [String],
        environment: [String: String?] = [:], input: String? = nil
    ) throws -> Child {
        let base = FileManager.default.temporaryDirectory.appending(path: "actiond-\(UUID().uuidString)").path
        let files = (input: base + ".in", output: base + ".out", error: base + ".err")
        try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: files.input))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, files.input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, files.output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, files.error, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        closeInheritedDescriptors(&actions)

        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw EmbeddedClusterError(.commandFailed, "cannot run \(executable.path): \(String(cString: strerror(spawned)))")
        }
        return Child(pid: pid, files: files)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion and collects its output.
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

    /// Runs `executable`; `input` is written to its standard input; `environment` entries are
    /// added to (or, with a nil value, removed from) this process's environment.
    package static func run(
        _ executable: URL, _ arguments: [String],
        environment: [String: String?] = [:], input: String? = nil
    ) throws -> Output {
        let base = FileManager.default.temporaryDirectory.appending(path: "actiond-\(UUID().uuidString)").path
        let (inPath, outPath, errPath) = (base + ".in", base + ".out", base + ".err")
        defer { for path in [inPath, outPath, errPath] { unlink(path) } }
        try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: inPath))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

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
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw EmbeddedClusterError(.commandFailed, "waitpid failed for \(executable.path): errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import (they are macros).
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Output(
            status: exitStatus,
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

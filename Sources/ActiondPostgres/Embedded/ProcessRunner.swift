import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a short-lived program to completion and collects its output.
///
/// Written on posix_spawn and waitpid rather than Foundation's `Process`, whose
/// `waitUntilExit` was seen here never to reap a child when called from a Swift concurrency
/// thread. Output goes to a temporary file rather than a pipe: `pg_ctl start` leaves a server
/// running that could inherit a pipe's write end, and reading to its end would then hang.
enum ProcessRunner {
    struct Output {
        var status: Int32
        var output: String
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> Output {
        let logPath = FileManager.default.temporaryDirectory.appending(path: "actiond-\(UUID().uuidString).out").path
        defer { unlink(logPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw EmbeddedClusterError(.commandFailed, "cannot run \(executable.path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw EmbeddedClusterError(.commandFailed, "waitpid failed for \(executable.path): errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return Output(status: exitStatus, output: output)
    }
}

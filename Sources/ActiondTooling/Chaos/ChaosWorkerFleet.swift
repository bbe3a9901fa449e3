import ActiondPostgres
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The soak's `actiond work` processes: SIGKILLed one at a time and restarted at once; one
/// that exits by itself is restarted too, and counted (a worker is meant to outlive a
/// database crash).
actor ChaosWorkerFleet {
    private let executable: URL
    private let arguments: [String]
    private let environment: [String: String?]
    private var children: [ProcessRunner.Child] = []
    /// Exits nobody asked for: "pid P: status S: the end of its standard error".
    private(set) var unexpectedExits: [String] = []
    /// Processes started in all (the first ones and every restart).
    private(set) var started = 0

    init(count: Int, executable: URL, arguments: [String], environment: [String: String?]) throws {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        for _ in 0..<count { children.append(try ProcessRunner.spawn(executable, arguments, environment: environment)) }
        started = count
    }

    var pids: [Int32] { children.map(\.pid) }

    /// SIGKILLs one worker chosen at random, reaps it and starts another in its place.
    /// Returns the killed process's id.
    func killOne() async throws -> Int32 {
        let index = Int.random(in: 0..<children.count)
        let victim = children[index]
        victim.send(SIGKILL)
        _ = try await victim.exit()
        children[index] = try ProcessRunner.spawn(executable, arguments, environment: environment)
        started += 1
        return victim.pid
    }

    /// Restarts any worker that exited by itself, noting why.
    func supervise() throws {
        for index in children.indices {
            var status: Int32 = 0
            guard waitpid(children[index].pid, &status, WNOHANG) == children[index].pid else { continue }
            let output = children[index].collect(status)
            unexpectedExits.append("pid \(children[index].pid) exited with status \(output.status): \(output.standardError.suffix(600))")
            children[index] = try ProcessRunner.spawn(executable, arguments, environment: environment)
            started += 1
        }
    }

    /// SIGTERM to every worker; waits for them. Returns each one's exit status and the end of
    /// its standard error.
    func stop() async throws -> [(status: Int32, error: String)] {
        for child in children { child.send(SIGTERM) }
        var ended: [(Int32, String)] = []
        for child in children {
            let output = try await child.exit()
            ended.append((output.status, String(output.standardError.suffix(1_000))))
        }
        children = []
        return ended
    }
}

import Foundation
import Logging
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds (user + system) of the benchmark's own PostgreSQL server, from /proc: its
/// postmaster (with the CPU of the children it has reaped: backends that ended) plus every
/// live child (backends, autovacuum, checkpointer, WAL writer). Another server on the same
/// machine counts for nothing. The server is found from a backend's parent process, so it
/// must run on this machine; for a remote server there is no figure (`nil`).
struct ServerCPU {
    private let postmaster: Int32
    private var first: Double?
    private var last: Double?
    private static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The server `client` is connected to, when it runs here.
    static func of(_ client: PostgresClient, logger: Logger) async throws -> ServerCPU? {
        let backend = try await client.query("SELECT pg_backend_pid()", logger: logger).collect().first!.decode(Int32.self)
        guard let parent = stat(backend)?.parent, command(parent) == "postgres", command(backend) == "postgres" else { return nil }
        return ServerCPU(postmaster: parent)
    }

    private init(postmaster: Int32) { self.postmaster = postmaster }

    /// Seconds since the first sample.
    var seconds: Double { (last ?? 0) - (first ?? 0) }

    /// Adds a reading. A child the postmaster reaps while the children are being read would
    /// be in neither part (not alive any more, not yet in the reaped time read before) and its
    /// whole CPU would go missing: a reading is kept only when the reaped time did not move
    /// while the children were read. (The backends of a worker that just exited are reaped
    /// during the last reading: before this check, a run's server CPU read as little as 40 %
    /// of what it was.)
    /// (After 20 readings that each saw a reaping, the last is kept as it is.)
    mutating func sample() {
        var total: Double?
        for _ in 0..<20 {
            guard let before = Self.stat(postmaster) else { return }
            var children = 0.0
            if let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") {
                for entry in entries {
                    guard let pid = Int32(entry), pid != postmaster, let child = Self.stat(pid), child.parent == postmaster else { continue }
                    children += child.own
                }
            }
            guard let after = Self.stat(postmaster) else { return }
            total = after.own + after.reaped + children
            if after.reaped == before.reaped { break }
        }
        guard let total else { return }
        if first == nil { first = total }
        last = total
    }

    private static func command(_ pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// From /proc/PID/stat, after the command: field 4 the parent, 14–15 utime and stime,
    /// 16–17 cutime and cstime (children waited for), in clock ticks.
    private static func stat(_ pid: Int32) -> (parent: Int32, own: Double, reaped: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = Int32(fields[1]),
              let user = Double(fields[11]), let system = Double(fields[12]),
              let childUser = Double(fields[13]), let childSystem = Double(fields[14]) else { return nil }
        return (parent, (user + system) / ticks, (childUser + childSystem) / ticks)
    }
}

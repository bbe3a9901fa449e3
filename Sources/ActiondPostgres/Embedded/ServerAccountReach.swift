import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the `postgres` account, which runs the embedded server when actiond runs as root,
/// can reach: PostgreSQL refuses to run as root, and a project under `/root` (mode 0700) is
/// closed to every other account.
package enum ServerAccountReach {
    /// Whether every folder from `/` down to `path` can be entered by other accounts.
    package static func isReachableByOthers(_ path: String) -> Bool {
        var url = URL(fileURLWithPath: path)
        while true {
            var info = stat()
            guard stat(url.path, &info) == 0, info.st_mode & 0o001 != 0 else { return false }
            if url.path == "/" { return true }
            url.deleteLastPathComponent()
        }
    }

    /// A folder in `/var/tmp` (open to the `postgres` account) named `prefix` and a tag of
    /// `path`: the same for every process run from `path` (a djb2 hash: `String.hashValue`
    /// differs per process), different for another project.
    package static func standIn(for path: String, prefix: String) -> String {
        let tag = String(UInt32(truncatingIfNeeded: path.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) }), radix: 16)
        return "/var/tmp/\(prefix)-\(tag)"
    }
}

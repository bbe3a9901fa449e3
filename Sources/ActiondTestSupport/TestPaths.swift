import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the tests find things.
package enum TestPaths {
    /// The embedded cluster the test run uses (never the one `actiond demo` uses):
    /// `ACTIOND_TEST_DATA_DIR`, else `.actiond/test-postgres` in the package. Under root, when
    /// the package sits below a folder the `postgres` account cannot enter, a folder in
    /// /var/tmp named after the package path instead.
    package static var clusterDirectory: String {
        if let directory = ProcessInfo.processInfo.environment["ACTIOND_TEST_DATA_DIR"] { return directory }
        let package = FileManager.default.currentDirectoryPath
        if geteuid() == 0 && !isReachableByOthers(package) {
            let tag = String(UInt32(truncatingIfNeeded: package.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) }), radix: 16)
            return "/var/tmp/actiond-test-postgres-\(tag)"
        }
        return URL(fileURLWithPath: package).appending(path: ".actiond/test-postgres").path
    }

    /// The `actiond` executable built beside the test binary.
    package static var actiondExecutable: URL { executable("actiond") }

    /// An executable of the package (`actiond`, `order-ready-worker`) built beside the test binary.
    package static func executable(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test binary is `<build>/actiondPackageTests.xctest`; on macOS it sits in a bundle.
        while !FileManager.default.isExecutableFile(atPath: directory.appending(path: name).path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appending(path: name)
    }

    /// Whether every folder from `/` down to `path` can be entered by other accounts.
    static func isReachableByOthers(_ path: String) -> Bool {
        var url = URL(fileURLWithPath: path)
        while true {
            var info = stat()
            guard stat(url.path, &info) == 0, info.st_mode & 0o001 != 0 else { return false }
            if url.path == "/" { return true }
            url.deleteLastPathComponent()
        }
    }
}

import ActiondPostgres
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
        if geteuid() == 0 && !ServerAccountReach.isReachableByOthers(package) {
            return ServerAccountReach.standIn(for: package, prefix: "actiond-test-postgres")
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

    /// A client program of the PostgreSQL server the tests use (`psql`, `pg_dump`): beside its
    /// `initdb`, else in the newest /usr/lib/postgresql/*/bin that has it.
    package static func serverTool(_ name: String) throws -> URL {
        let binaries = try PostgresBinaries.locate()
        let candidates = [binaries.directory, binaries.initdb.resolvingSymlinksInPath().deletingLastPathComponent()]
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed()
                .map { URL(fileURLWithPath: "/usr/lib/postgresql/\($0)/bin") }
        for directory in candidates where FileManager.default.isExecutableFile(atPath: directory.appending(path: name).path) {
            return directory.appending(path: name)
        }
        throw TestDatabaseError("\(name) not found beside initdb or in /usr/lib/postgresql/*/bin")
    }
}

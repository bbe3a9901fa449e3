import Foundation

/// Where the tests find things.
public enum TestPaths {
    /// The embedded cluster the test run uses (never the one `actiond demo` uses).
    public static var clusterDirectory: String {
        ProcessInfo.processInfo.environment["ACTIOND_TEST_DATA_DIR"]
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appending(path: ".actiond/test-postgres").path
    }

    /// The `actiond` executable built beside the test binary.
    public static var actiondExecutable: URL {
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        // On Linux the test binary is `<build>/actiondPackageTests.xctest`; on macOS it sits in a bundle.
        while !FileManager.default.isExecutableFile(atPath: directory.appending(path: "actiond").path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appending(path: "actiond")
    }
}

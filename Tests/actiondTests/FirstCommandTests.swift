import ActiondEmbedded
import ActiondPostgres
import ActiondTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The README's first command just works, for root in a folder the `postgres` account cannot
/// reach too (issue 14, item 7): the embedded cluster goes where that account can reach, the
/// command says where, and `db stop` from the same folder finds it.
@Suite("First command", .timeLimit(.minutes(3)))
struct FirstCommandTests {
    @Test func theDefaultFolderMovesOnlyForRootInAFolderClosedToPostgres() throws {
        let closed = FileManager.default.temporaryDirectory.appending(path: "actiond-closed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: closed + "/project", withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: closed)
        defer { try? FileManager.default.removeItem(atPath: closed) }
        let project = closed + "/project"

        let asUser = EmbeddedCluster.defaultLocation(workingDirectory: project, asRoot: false)
        #expect(asUser.path == project + "/.actiond/postgres" && asUser.relocatedFrom == nil)
        let asRoot = EmbeddedCluster.defaultLocation(workingDirectory: project, asRoot: true)
        #expect(asRoot.path.hasPrefix("/var/tmp/actiond-") && asRoot.path.hasSuffix("/postgres"), "\(asRoot.path)")
        #expect(asRoot.relocatedFrom == project + "/.actiond/postgres")
        #expect(EmbeddedCluster.defaultLocation(workingDirectory: project, asRoot: true).path == asRoot.path, "the same folder every time")
        #expect(EmbeddedCluster.defaultLocation(workingDirectory: closed, asRoot: true).path != asRoot.path, "another project, another folder")
        // A folder everyone can reach keeps the cluster in the project, for root too.
        #expect(EmbeddedCluster.defaultLocation(workingDirectory: "/tmp", asRoot: true).relocatedFrom == nil)
    }

    /// Through the binary, as root (as CI runs): `actiond demo` from a folder closed to
    /// `postgres`, with no database configured, then `actiond db stop` from the same folder.
    @Test(.enabled(if: geteuid() == 0, "runs the server as the postgres account: root only"))
    func asRootTheDemoWorksFromAFolderClosedToPostgres() async throws {
        let closed = FileManager.default.temporaryDirectory.appending(path: "actiond-closed-\(UUID().uuidString)").path
        let project = closed + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: closed)
        let cluster = EmbeddedCluster.defaultLocation(workingDirectory: project, asRoot: true).path
        defer {
            try? FileManager.default.removeItem(atPath: closed)
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: cluster).deletingLastPathComponent().path)
        }
        func actiond(_ arguments: String) async throws -> ProcessRunner.Output {
            try await ProcessRunner.spawn(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(project)' && exec '\(TestPaths.actiondExecutable.path)' \(arguments)"],
                environment: ["DATABASE_URL": nil, "ACTIOND_DATA_DIR": nil, "ACTIOND_LOG_LEVEL": "notice"]).exit()
        }

        let demo = try await actiond("demo --users 5")
        #expect(demo.status == 0, "\(demo.standardError)")
        #expect(demo.standardOutput.contains("5. workers applied the sample"), "\(demo.standardOutput)")
        #expect(demo.standardError.contains("the embedded database lives in \(cluster)"), "it says where: \(demo.standardError)")
        #expect(FileManager.default.fileExists(atPath: cluster + "/data/PG_VERSION"))
        let status = try await actiond("db status")
        #expect(status.standardOutput.contains("running on 127.0.0.1:") && status.standardOutput.contains(cluster), "\(status.standardOutput)")
        let stop = try await actiond("db stop")
        #expect(stop.status == 0 && stop.standardOutput.contains("stopped"), "db stop finds it again: \(stop.standardOutput) \(stop.standardError)")
    }
}

import ActiondPostgres
import ActiondTestSupport
import Foundation
import Testing

/// A worker built from ActiondKit's production entry point (`Actiond.main`: a team's, or the
/// image's `actiond-worker`) has the operating commands and links none of the development
/// tooling (bench, workload, demo); the `actiond` binary (`ActiondDevelopment.main`) has both.
@Suite("Production worker", .timeLimit(.minutes(2)))
struct ProductionWorkerTests {
    /// The team's worker (order-ready-worker) and the production actiond the Dockerfile ships
    /// (actiond-worker) alike.
    @Test(arguments: ["order-ready-worker", "actiond-worker"])
    func aProductionWorkerHasNoDevelopmentToolsInItsCommandsOrItsSymbols(_ name: String) async throws {
        let worker = TestPaths.executable(name), actiond = TestPaths.actiondExecutable
        let help = try await ProcessRunner.spawn(worker, ["--help"]).exit()
        for command in ["work", "submit", "forget", "keys", "report"] { #expect(help.output.contains("  \(command)"), "\(command)") }
        for command in ["demo", "bench", "db"] { #expect(!help.output.contains("  \(command) "), "\(command) in the production worker") }
        let bench = try await ProcessRunner.spawn(worker, ["bench", "--quick"]).exit()
        #expect(bench.status != 0)

        let full = try await ProcessRunner.spawn(actiond, ["--help"]).exit()
        for command in ["demo", "bench", "db", "work", "forget"] { #expect(full.output.contains("  \(command)"), "\(command) in actiond") }

        // The symbols: the tooling module's mangled name (14ActiondTooling) in actiond, not in the worker.
        func symbols(_ executable: URL) async throws -> String {
            try await ProcessRunner.spawn(URL(fileURLWithPath: "/usr/bin/nm"), [executable.path]).exit().standardOutput
        }
        #expect(try await symbols(actiond).contains("14ActiondTooling"), "the check can see the module")
        #expect(!(try await symbols(worker).contains("14ActiondTooling")), "the production worker links the development tooling")
        #expect(!(try await symbols(worker).contains("18ActiondDevelopment")))
        #expect(try await symbols(actiond).contains("15ActiondEmbedded"), "the check can see the embedded cluster's module")
        #expect(!(try await symbols(worker).contains("15ActiondEmbedded")), "the production worker links the embedded cluster")
    }

    /// Without a database URL a production worker starts no PostgreSQL of its own: every
    /// command that needs the database says how to give one and exits non-zero at once.
    @Test(arguments: ["order-ready-worker", "actiond-worker"])
    func aProductionWorkerWithoutADatabaseURLStartsNoneAndSaysHowToGiveOne(_ name: String) async throws {
        let worker = TestPaths.executable(name)
        let noDatabase: [String: String?] = ["DATABASE_URL": nil, "ACTIOND_DATABASE_URL": nil, "ACTIOND_DATA_DIR": nil,
                                             "ACTIOND_LOG_FORMAT": "text"]
        for command in [["report", "queue"], ["migrate"], ["work", "--drain"]] {
            let started = ContinuousClock.now
            let run = try await ProcessRunner.spawn(worker, command, environment: noDatabase).exit()
            #expect(run.status != 0, "\(command)")
            #expect(run.standardError.contains("no database configured") && run.standardError.contains("--database-url")
                    && run.standardError.contains("DATABASE_URL"), "\(command): \(run.standardError)")
            #expect(!run.output.contains("embedded database") && !run.output.contains("initdb"), "\(command): \(run.output)")
            #expect(started.duration(to: .now) < .seconds(20), "\(command) answered at once")
        }
    }
}

import ActiondEmbedded
import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import ActiondTooling
import Foundation
import Logging
import PostgresNIO
import Testing

/// The chaos soak (`actiond bench --chaos`) and its checker (`actiond bench chaos-check`),
/// through the binary. Correctness only: speed is never asserted here.
@Suite("Chaos soak", .timeLimit(.minutes(8)))
struct ChaosSoakTests {
    /// About a minute of steady load on a cluster of the test's own, with two worker SIGKILLs
    /// and one PostgreSQL crash: every acknowledged submit decided exactly once, each user's
    /// order kept, the projections equal to the rebuild. A light load (50 events/s): the suite's
    /// other tests run beside it on the same two cores, with time limits of their own.
    @Test func aShortSoakThroughAKillAndACrashLosesNothingAndDoublesNothing() async throws {
        let directory = "/var/tmp/actiond-chaos-\(UUID().uuidString.prefix(8))"
        let json = FileManager.default.temporaryDirectory.appending(path: "chaos-\(UUID().uuidString).json")
        defer {
            _ = try? EmbeddedCluster.locate(directory: directory).stop()
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(at: json)
        }
        let run = try await ActiondProcess.run(
            ["bench", "--chaos", "60s", "--rate", "50", "--users", "100", "--kill-every", "20s", "--crash-every", "30s",
             "--data-dir", directory, "--json", json.path], database: nil)
        #expect(run.status == 0, "\(run.standardOutput)\n\(run.standardError.suffix(3000))")
        let result = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: json))
        let kinds = (result["faults"]?.arrayValue ?? []).compactMap { $0["kind"]?.stringValue }
        #expect(kinds.filter { $0 == "worker_kill" }.count >= 1 && kinds.filter { $0 == "postgres_crash" }.count == 1, "\(kinds)")
        let checks = Dictionary(uniqueKeysWithValues: (result["checks"]?.arrayValue ?? []).compactMap { check in
            check["name"]?.stringValue.map { ($0, check["failures"]?.integerValue ?? -1) }
        })
        for name in ["answers", "lost", "undecided", "doubled", "unacknowledged", "applied_once", "effects_once", "order",
                     "device_time", "dead", "stash", "counts", "resubmits", "rebuild"] {
            #expect(checks[name] == 0, "check \(name): \(checks[name].map(String.init) ?? "missing")")
        }
        let acknowledged = result["producers"]?["acknowledged"]?.integerValue ?? 0
        #expect(acknowledged > 1_000, "the load was offered: \(acknowledged) acknowledged")
        #expect(result["events_in_log"]?.integerValue == acknowledged, "each acknowledged submit once in the log")
        #expect(result["passed"] == .bool(true))
        #expect(run.standardOutput.contains("every check passed"))
    }

    /// The checker on a scratch database whose log lost one acknowledged event and holds
    /// another one twice, decided twice: it exits 1 and names both.
    @Test func theCheckerNamesALossAndADouble() async throws {
        try await TestDatabase.with { db in
            var workload = MixedWorkload(users: 20, seed: 7, runID: "k")
            workload.earlyResponses = false
            let lines = workload.events()
            let results = try await EventSubmitter(client: db.client, logger: db.logger).submit(lines)
            let ledgerFile = FileManager.default.temporaryDirectory.appending(path: "ledger-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: ledgerFile) }
            let ledger = try ChaosLedger.Writer(path: ledgerFile)
            for (line, result) in zip(lines, results) {
                let strings = line.split(separator: "\"", maxSplits: 12)
                try await ledger.append(ChaosLedger.Entry(user: String(strings[11]), id: String(strings[3]),
                                                          position: try #require(result.position), answer: result.status.rawValue))
            }
            try await ledger.close()
            #expect(try ChaosLedger.read(path: ledgerFile).count == lines.count)
            let drained = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(drained.status == 0, "\(drained.standardError)")

            let clean = try await ActiondProcess.run(["bench", "chaos-check", ledgerFile], database: db.url)
            #expect(clean.status == 0, "\(clean.standardOutput)\n\(clean.standardError)")
            #expect(clean.standardOutput.contains("every check passed"), "\(clean.standardOutput)")

            // One acknowledged event deleted from the log; another stored and decided a second time.
            let (lostUser, lostID, lostPosition) = try await db.client.query("""
                SELECT user_id, id, position FROM actiond.events WHERE type = 'notification.response' ORDER BY position LIMIT 1
                """, logger: db.logger).collect().first!.decode((String, String, Int64).self)
            try await db.client.query("DELETE FROM actiond.events WHERE position = \(lostPosition)", logger: db.logger).drain()
            let (doubledUser, doubledID, doubledPosition) = try await db.client.query("""
                SELECT user_id, id, position FROM actiond.events WHERE type = 'notification.sent' ORDER BY position DESC LIMIT 1
                """, logger: db.logger).collect().first!.decode((String, String, Int64).self)
            try await db.client.query("""
                WITH copy AS (SELECT (SELECT max(position) + 1 FROM actiond.events) AS position)
                INSERT INTO actiond.events (position, id, type, user_id, occurred_at, data, submitted_at)
                SELECT copy.position, e.id, e.type, e.user_id, e.occurred_at, e.data, e.submitted_at
                FROM actiond.events e, copy WHERE e.position = \(doubledPosition)
                """, logger: db.logger).drain()
            try await db.client.query("""
                INSERT INTO actiond.outcomes (user_id, position, outcome, reason, attempts, last_error, decided_at, category, action, submitted_at)
                SELECT o.user_id, (SELECT max(position) FROM actiond.events), o.outcome, o.reason, o.attempts, o.last_error,
                       o.decided_at, o.category, o.action, o.submitted_at
                FROM actiond.outcomes o WHERE o.position = \(doubledPosition)
                """, logger: db.logger).drain()

            let broken = try await ActiondProcess.run(["bench", "chaos-check", ledgerFile], database: db.url)
            #expect(broken.status == 1, "\(broken.standardOutput)\n\(broken.standardError)")
            let output = broken.standardOutput
            #expect(output.contains("lost            FAILED") && output.contains("\(lostUser)/\(lostID) acknowledged at position \(lostPosition) is not in the log"),
                    "\(output)")
            #expect(output.contains("doubled         FAILED") && output.contains("\(doubledUser)/\(doubledID) is in the log 2 times"), "\(output)")
            #expect(output.contains("FAILED: ") && output.contains("lost") && output.contains("doubled"))
        }
    }
}

import ActiondDomain
import Logging
import PostgresNIO

/// Removes the partitions of actiond.events and actiond.outcomes whose events are all older
/// than a retention period and final (`actiond prune`; Schema/migrations/003_log_partitions.sql
/// says what is kept and why). Each step is its own short transaction through the
/// `log_prune_*` functions: mark a partition (after the transactions inserting into it end),
/// forget its ids in batches, drop it. A step that cannot get its lock within its
/// lock_timeout (55P03) is retried after a pause, so the hot path never queues behind a prune
/// for longer than that timeout. Runs as a member of actiond_owner.
package struct LogPruner: Sendable {
    /// Positions [lower, upper) of one partition.
    package struct Partition: Sendable, Hashable, CustomStringConvertible {
        package var lower: Int64
        package var upper: Int64
        package var description: String { "positions \(lower)-\(upper - 1)" }
    }

    /// An old partition kept because some of its events are not final.
    package struct Kept: Sendable, Hashable {
        package var partition: Partition
        package var queued: Int64
        package var held: Int64
        package var stashed: Int64
        package var dead: Int64
        package var unresolved: Int64 { queued + held + stashed + dead }
    }

    /// What a prune did.
    package struct Report: Sendable, Hashable {
        package var dropped: [Partition] = []
        /// Events removed, with their outcome each (every one was final).
        package var events: Int64 = 0
        package var kept: [Kept] = []
    }

    package var client: PostgresClient
    package var logger: Logger
    /// Ids deleted per transaction.
    package var batchSize = 10_000
    /// Attempts of a step that times out waiting for its lock, a pause apart.
    package var lockAttempts = 100
    package var lockPause: Duration = .milliseconds(200)

    package init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// A prune stopped by the database; what it dropped before stays dropped, and the next
    /// prune carries on from there.
    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// Prunes what is older than `period` (by the database's clock) and final.
    package func prune(olderThan period: RetentionPeriod) async throws -> Report {
        do {
            return try await pruneSteps(olderThan: period)
        } catch let error as PSQLError where error.sqlState != .insufficientPrivilege {
            // A login that may not prune is told which role it needs (the command line's
            // RoleRefusal), not to run it again.
            throw Failure(message: "prune stopped: \(DatabaseFailure.describe(error)); run it again to carry on")
        }
    }

    private func pruneSteps(olderThan period: RetentionPeriod) async throws -> Report {
        let cutoff = try await client.query("SELECT (now() - make_interval(secs => \(Double(period.seconds))))::text", logger: logger)
            .collect().first!.decode(String.self)
        var report = Report()
        let rows = try await client.query("""
            SELECT lower_bound, upper_bound, forgetting, queued, held, stashed, dead
            FROM actiond.log_prune_candidates(\(cutoff)::timestamptz)
            """, logger: logger).collect()
        for row in rows {
            let (lower, upper, forgetting, queued, held, stashed, dead) =
                try row.decode((Int64, Int64, Bool, Int64, Int64, Int64, Int64).self)
            let partition = Partition(lower: lower, upper: upper)
            let kept = Kept(partition: partition, queued: queued, held: held, stashed: stashed, dead: dead)
            if !forgetting {
                if kept.unresolved > 0 {
                    report.kept.append(kept)
                    continue
                }
                let marked = try await retryingLock {
                    try await client.query("SELECT actiond.log_prune_begin(\(lower), \(cutoff)::timestamptz)", logger: logger)
                        .collect().first!.decode(Bool.self)
                }
                guard marked else { continue }  // an event committed meanwhile keeps it; the next prune says why
            }
            while true {
                let went = try await client.query("SELECT actiond.log_prune_forget(\(lower), \(batchSize))", logger: logger)
                    .collect().first!.decode(Int64.self)
                report.events += went
                if went == 0 { break }
            }
            _ = try await retryingLock {
                try await client.query("SELECT actiond.log_prune_drop(\(lower))", logger: logger).collect().first!.decode(Bool.self)
            }
            logger.info("dropped partition", metadata: ["partition": "\(partition)"])
            report.dropped.append(partition)
        }
        return report
    }

    /// Runs `step`, again after a pause while it fails for want of a lock (55P03).
    private func retryingLock<T>(_ step: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await step()
            } catch let error as PSQLError where error.sqlState == .lockNotAvailable && attempt < lockAttempts {
                logger.debug("prune step waits for a lock", metadata: ["attempt": "\(attempt)"])
                attempt += 1
                try await Task.sleep(for: lockPause)
            }
        }
    }
}

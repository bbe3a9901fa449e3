import ActiondPostgres
import ActiondSealing
import CoreMetrics
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Keeps a forgotten person's keys out of this process's memory: about every `checkInterval`
/// asks the database which users were forgotten since its last look (`forgotten_since`, which
/// only the workers and the owner may call) and drops their cached keys; and drops expired
/// entries every `sweepInterval`, so that no key outlives `KeyCache.maxAge` plus one sweep
/// whatever happens (SECURITY.md states the bound). Publishes the cache's size as
/// `actiond_key_cache_keys` and the keys that did not unwrap as
/// `actiond_key_unwrap_failures_total`.
///
/// No notification: any login may LISTEN on a channel and read its payloads, or NOTIFY it, and
/// who was forgotten, and when, is for the owner and the workers only. A look that fails (the
/// database unreachable) is made again from the same time, so no forget is missed.
package struct KeyCacheKeeper: Service {
    /// How far before its last look the next one starts: a forget's time is taken just
    /// before its transaction commits (recorded beside the KEK meanwhile), so it may become
    /// visible a little after a look that started later.
    static let overlap: TimeInterval = 60

    let client: PostgresClient
    let cache: KeyCache
    let sweepInterval: Duration
    let checkInterval: Duration
    let size: Gauge
    let unwrapFailures: Counter
    let logger: Logger

    package init(client: PostgresClient, cache: KeyCache, sweepInterval: Duration = .seconds(5), checkInterval: Duration = .seconds(1),
                 factory: (any MetricsFactory)? = nil, logger: Logger) {
        self.client = client
        self.cache = cache
        self.sweepInterval = sweepInterval
        self.checkInterval = checkInterval
        size = factory.map { Gauge(label: "actiond_key_cache_keys", factory: $0) } ?? Gauge(label: "actiond_key_cache_keys")
        unwrapFailures = factory.map { Counter(label: "actiond_key_unwrap_failures_total", factory: $0) }
            ?? Counter(label: "actiond_key_unwrap_failures_total")
        self.logger = logger
    }

    /// Runs until cancelled or a graceful shutdown.
    package func run() async {
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                group.addTask { await sweep() }
                group.addTask { await watchForgets() }
            }
        }
    }

    private func sweep() async {
        var published = 0
        while !Task.isCancelled {
            cache.removeExpired()
            size.record(cache.count)
            let failures = cache.unwrapFailures
            if failures > published {
                unwrapFailures.increment(by: Int64(failures - published))
                published = failures
            }
            do { try await Task.sleep(for: sweepInterval) } catch { return }
        }
    }

    private func watchForgets() async {
        // nil: the first look only learns the database's time (the cache fills after it;
        // a key cached before is used only while the database still holds it, and ages out).
        var since: Date?
        var failing = false
        while !Task.isCancelled {
            do {
                // Guarded as every chore's query (PeriodicChore): after a server restart a
                // query on a closed connection would otherwise never complete.
                let found = try await client.withConnection { [since, logger] connection in
                    try await connection.failingWhenClosed(closeOnCancel: false) {
                        try await KeyStore.forgottenSince(since, on: connection, logger: logger)
                    }
                }
                for user in found.users { cache.evict(user: user) }
                if !found.users.isEmpty { size.record(cache.count) }
                since = found.checkedAt.addingTimeInterval(-Self.overlap)
                if failing { logger.notice("key cache keeper reconnected") }
                failing = false
            } catch {
                if Task.isCancelled { return }
                if !failing {
                    logger.warning("key cache keeper cannot ask for forgets; trying again every round", metadata: [LogKey.error: "\(DatabaseFailure.describe(error))"])
                }
                failing = true
            }
            do { try await Task.sleep(for: checkInterval) } catch { return }
        }
    }
}

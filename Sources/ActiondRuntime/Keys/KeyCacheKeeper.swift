import ActiondPostgres
import ActiondSealing
import CoreMetrics
import Logging
import PostgresNIO
import ServiceLifecycle

/// Keeps a forgotten person's keys out of this process's memory: LISTENs on `actiond_forget`
/// (notified by `forget_keys` at the forget's commit, the user id as payload) and drops that
/// user's cached keys at once; empties the whole cache after each (re)connect, since
/// notifications sent while disconnected are lost; and drops expired entries every
/// `sweepInterval`, so that no key outlives `KeyCache.maxAge` plus one sweep whatever happens
/// (SECURITY.md states the bound). Publishes the cache's size as `actiond_key_cache_keys`.
package struct KeyCacheKeeper: Service {
    static let channel = "actiond_forget"

    let client: PostgresClient
    let cache: KeyCache
    let sweepInterval: Duration
    let size: Gauge
    let logger: Logger

    package init(client: PostgresClient, cache: KeyCache, sweepInterval: Duration = .seconds(5), factory: (any MetricsFactory)? = nil,
                 logger: Logger) {
        self.client = client
        self.cache = cache
        self.sweepInterval = sweepInterval
        size = factory.map { Gauge(label: "actiond_key_cache_keys", factory: $0) } ?? Gauge(label: "actiond_key_cache_keys")
        self.logger = logger
    }

    /// Runs until cancelled or a graceful shutdown.
    package func run() async {
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                group.addTask { await sweep() }
                group.addTask { await listen() }
            }
        }
    }

    private func sweep() async {
        while !Task.isCancelled {
            cache.removeExpired()
            size.record(cache.count)
            do { try await Task.sleep(for: sweepInterval) } catch { return }
        }
    }

    private func listen() async {
        await ChannelListener(client: client, channel: Self.channel, name: "key cache listener", logger: logger).run(
            connected: { [cache, size] in
                cache.removeAll()
                size.record(cache.count)
            },
            received: { [cache, size] notification in
                cache.evict(user: notification.payload)
                size.record(cache.count)
            },
            lost: { cache.removeAll() })
    }
}

import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/`: what waits and its oldest age, decisions per minute, latency, pauses, live workers.
/// The script refreshes its live part every 5 seconds while the tab is visible.
struct OverviewPage: Sendable {
    struct QueueRow: Sendable {
        let status: String
        let events: String
        let oldest: String
    }

    struct LatencyRow: Sendable {
        let window: String
        let events: String
        let p50: String
        let p95: String
        let p99: String
    }

    struct Model: Sendable {
        let layout: PageLayout
        let queue: [QueueRow]
        let chart: ThroughputChart
        let latency: [LatencyRow]
        let everyonePaused: Bool
        let pausedUsers: String
        let liveWorkers: Int
        let refreshSeconds = 5
    }

    let store: ConsoleStore
    let templates: ConsoleTemplates

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/") { _, context in try await render(context: context) }
    }

    func render(context: ConsoleContext) async throws -> Response {
        async let queue = store.queue()
        async let throughput = store.throughput(minutes: 60)
        async let latency = store.latency()
        async let pauses = store.pauses()
        async let workers = store.liveWorkers()
        let pauseRows = try await pauses
        let model = Model(
            layout: PageLayout(title: "Overview", current: "/", context: context),
            queue: try await queue.map {
                QueueRow(status: $0.string("status") ?? "", events: Show.count($0.int("events")),
                         oldest: ($0.int("events") ?? 0) > 0 ? Show.age(seconds: $0.double("oldest_age_seconds")) : "–")
            },
            chart: ThroughputChart(rows: try await throughput),
            latency: try await latency.map {
                LatencyRow(window: ($0.string("window") ?? "").replacingOccurrences(of: "_", with: " "),
                           events: Show.count($0.int("events")), p50: Show.milliseconds($0.double("p50_ms")),
                           p95: Show.milliseconds($0.double("p95_ms")), p99: Show.milliseconds($0.double("p99_ms")))
            },
            everyonePaused: pauseRows.contains { $0.string("user_id") == nil },
            pausedUsers: Show.count(Int64(pauseRows.filter { $0.string("user_id") != nil }.count)),
            liveWorkers: try await workers)
        return ConsoleResponses.html(templates.render("overview", model))
    }
}

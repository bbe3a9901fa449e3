import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// `actiond work --http-port`: /metrics, /health/live and /health/ready through the binary
/// (docs/contract.md, "Operating"; issue 14, item 1), and the environment variables behind the flags.
@Suite("Operations endpoint", .timeLimit(.minutes(3)))
struct OperationsEndpointTests {
    /// The value of one sample line (`name{labels} value`) in Prometheus text, or nil.
    static func sample(_ metrics: String, _ series: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// One series' value as /metrics shows it now, or nil.
    static func gauge(_ port: Int, _ series: String) async -> Double? {
        sample(await HTTPProbe.get(port: port, "/metrics")?.body ?? "", series)
    }

    @Test func metricsCountProcessedEventsByOutcome() async throws {
        try await TestDatabase.with { db in
            // 30 applied (meeting cancellations) and 5 rejected (answers to notifications never sent).
            let applied = (0..<30).map { EventLine.json("c\($0)", "meeting.cancelled", user: "user-\($0 % 7)", data: #"{"meeting_id":"m"}"#) }
            let rejected = (0..<5).map {
                EventLine.json("r\($0)", "notification.response", user: "secret-user-\($0)", at: "2026-11-22T09:31:00Z",
                               data: #"{"request_id":"nope-\#($0)","action":"ACCEPT_ACTION","locked":false}"#)
            }
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: (applied + rejected).joined(separator: "\n"))
            #expect(submitted.status == 0, "\(submitted.standardError)")

            let worker = try ActiondProcess.start(["work", "--http-port", "0", "--hold-window", "0", "--log-format", "json"],
                                                  database: db.url, logLevel: "notice")
            let port = try #require(try await HTTPProbe.loggedPort { worker.standardErrorSoFar })
            var metrics = ""
            let counted = try await eventually {
                metrics = await HTTPProbe.get(port: port, "/metrics")?.body ?? ""
                return Self.sample(metrics, #"actiond_events_total{outcome="applied"}"#) == 30
                    && Self.sample(metrics, #"actiond_events_total{outcome="rejected"}"#) == 5
            }
            #expect(counted, "\(metrics)")
            // The counters agree with the log's outcomes, and nothing else was counted.
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'applied'", as: Int.self) == 30)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.outcomes WHERE outcome = 'rejected'", as: Int.self) == 5)
            for outcome in ["superseded", "stashed", "dead"] {
                #expect(Self.sample(metrics, "actiond_events_total{outcome=\"\(outcome)\"}") == 0)
            }
            // The other instruments the issue names are there.
            for series in ["actiond_claim_duration_seconds_count", "actiond_commit_duration_seconds_count", "actiond_batch_size_count",
                           "actiond_handler_failures_total", #"actiond_batch_failures_total{kind="systemic"}"#] {
                #expect(Self.sample(metrics, series) != nil, "\(series) missing")
            }
            let gauges = try await eventually {
                metrics = await HTTPProbe.get(port: port, "/metrics")?.body ?? ""
                return ["queued", "retrying", "paused", "held", "stashed", "dead"].allSatisfy {
                    Self.sample(metrics, "actiond_queue_depth{status=\"\($0)\"}") != nil
                        && Self.sample(metrics, "actiond_queue_oldest_age_seconds{status=\"\($0)\"}") != nil
                }
            }
            #expect(gauges, "\(metrics)")
            // No user ids in labels (or anywhere in the text).
            #expect(!metrics.contains("secret-user") && !metrics.contains("user-"))

            worker.send(SIGTERM)
            let exit = try await worker.exit()
            #expect(exit.status == 0, "\(exit.standardError)")
        }
    }

    @Test func readinessFollowsTheSchemaWhileLivenessStays() async throws {
        try await TestDatabase.with { db in
            let worker = try ActiondProcess.start(["work", "--http-port", "0", "--poll-interval", "1", "--log-format", "json"],
                                                  database: db.url, logLevel: "notice")
            let port = try #require(try await HTTPProbe.loggedPort { worker.standardErrorSoFar })
            #expect(try await eventually { await HTTPProbe.get(port: port, "/health/ready")?.status == 200 })
            #expect(await HTTPProbe.get(port: port, "/health/live")?.status == 200)
            // actiond_ready says the same for alert rules (deploy/prometheus/alerts.yml).
            #expect(try await eventually { await Self.gauge(port, "actiond_ready") == 1 })
            // With no --http-host the endpoint is on loopback only (metrics and health carry no
            // authentication): the log line names the address it took.
            #expect(worker.standardErrorSoFar.contains(#""http_host":"127.0.0.1""#), "\(worker.standardErrorSoFar)")

            try await db.client.query("ALTER SCHEMA actiond RENAME TO actiond_away", logger: db.logger).drain()
            var ready: (status: Int, body: String)?
            // 503 at once (the batch loops fail on the missing schema), then naming the schema
            // once the background check has run.
            let unready = try await eventually {
                ready = await HTTPProbe.get(port: port, "/health/ready")
                return ready?.status == 503 && ready?.body.contains("schema actiond: is missing") == true
            }
            #expect(unready, "\(String(describing: ready))")
            #expect(ready?.body.split(separator: "\n").count == 1, "one line")
            #expect(try await eventually { await Self.gauge(port, "actiond_ready") == 0 })
            let live = await HTTPProbe.get(port: port, "/health/live")
            #expect(live?.status == 200 && live?.body == "live\n")

            try await db.client.query("ALTER SCHEMA actiond_away RENAME TO actiond", logger: db.logger).drain()
            let back = try await eventually {
                ready = await HTTPProbe.get(port: port, "/health/ready")
                return ready?.status == 200
            }
            #expect(back, "\(String(describing: ready))")
            #expect(await HTTPProbe.get(port: port, "/health/live")?.status == 200)
            #expect(try await eventually { await Self.gauge(port, "actiond_ready") == 1 })

            worker.send(SIGTERM)
            let exit = try await worker.exit()
            #expect(exit.status == 0, "\(exit.standardError)")
        }
    }

    /// An HTTP/1.0 health check (busybox wget, a raw socket) gets its answer and the end of
    /// the connection; an HTTP/1.1 client's connection stays open for its next request.
    @Test func anHTTP10RequestsConnectionClosesAfterItsAnswer() async throws {
        try await TestDatabase.with { db in
            let worker = try ActiondProcess.start(["work", "--http-port", "0", "--log-format", "json"], database: db.url, logLevel: "notice")
            let port = try #require(try await HTTPProbe.loggedPort { worker.standardErrorSoFar })
            #expect(try await eventually { await HTTPProbe.get(port: port, "/health/ready")?.status == 200 })
            for path in ["/health/live", "/health/ready", "/metrics"] {
                let old = try await HTTPProbe.exchange(port: port, "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", waitingForClose: 10)
                #expect(old.closed && old.response.contains(" 200 "), "\(path): \(old)")
            }
            let kept = try await HTTPProbe.exchange(port: port, "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", waitingForClose: 1)
            #expect(!kept.closed && kept.response.hasPrefix("HTTP/1.1 200") && kept.response.hasSuffix("live\n"), "\(kept)")
            let asked = try await HTTPProbe.exchange(port: port, "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", waitingForClose: 10)
            #expect(asked.closed, "\(asked)")
            worker.send(SIGTERM)
            let exit = try await worker.exit()
            #expect(exit.status == 0, "\(exit.standardError)")
        }
    }

    @Test func theEnvironmentSetsThePortAndTheLogFormatAndAFlagWins() async throws {
        try await TestDatabase.with { db in
            // A port found free can be taken before the worker binds it (an outgoing connection's
            // ephemeral port, on a busy machine): then the worker exits saying so, and another
            // port is tried.
            var port = 0
            var exit: ActiondProcess.Result?
            for _ in 0..<5 {
                port = try HTTPProbe.freePort()
                let worker = try ActiondProcess.start(["work"], database: db.url, logLevel: "notice", environment: [
                    "ACTIOND_HTTP_PORT": "\(port)", "ACTIOND_LOG_FORMAT": "json", "ACTIOND_CONCURRENCY": "2",
                ])
                let live = try await eventually { await HTTPProbe.get(port: port, "/health/live")?.status == 200 }
                worker.send(SIGTERM)
                let result = try await worker.exit()
                if !live && result.standardError.contains("Address already in use") { continue }
                #expect(live)
                exit = result
                break
            }
            guard let exit else { Issue.record("no free port in five tries"); return }
            #expect(exit.status == 0, "\(exit.standardError)")
            let lines = LogFormatTests.objects(exit.standardError)
            let starting = lines.first { $0["message"] as? String == "workers starting" }
            #expect(starting?["concurrency"] as? String == "2", "ACTIOND_CONCURRENCY")
            #expect(lines.contains { $0["http_port"] as? String == "\(port)" })

            // A flag wins over its variable.
            let flagged = try await ActiondProcess.run(["work", "--drain", "--concurrency", "3", "--log-format", "text"], database: db.url,
                                                       logLevel: "notice", environment: ["ACTIOND_CONCURRENCY": "2", "ACTIOND_LOG_FORMAT": "json"])
            #expect(flagged.status == 0, "\(flagged.standardError)")
            #expect(flagged.standardError.contains("concurrency=3") && !flagged.standardError.contains("{\""), "\(flagged.standardError)")

            // A malformed variable is refused naming it, like a malformed flag.
            let bad = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: ["ACTIOND_BATCH_SIZE": "lots"])
            #expect(bad.status != 0 && bad.standardError.contains("ACTIOND_BATCH_SIZE must be a whole number"), "\(bad.standardError)")
            let badDrain = try await ActiondProcess.run(["work"], database: db.url, environment: ["ACTIOND_DRAIN": "perhaps"])
            #expect(badDrain.status != 0 && badDrain.standardError.contains("ACTIOND_DRAIN must be true or false"), "\(badDrain.standardError)")
        }
    }
}

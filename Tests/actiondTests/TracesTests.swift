import ActiondPostgres
import ActiondTestSupport
import Foundation
import Hummingbird
import NIOCore
import PostgresNIO
import Synchronization
import Testing

/// Traces through the binary (`actiond work` with the standard OTEL_* settings), exported
/// over OTLP/HTTP to a collector this test plays: each batch and its phases are spans, each
/// decision a span with its category, action and outcome under the batch's `actiond.decide`;
/// no span carries a person's text or a user id; with no OTEL_* setting nothing is exported.
@Suite("Traces", .timeLimit(.minutes(3)))
struct TracesTests {
    /// An OTLP/HTTP collector on a free loopback port: keeps every body posted to /v1/traces.
    final class Collector: Sendable {
        let bodies = Mutex<[String]>([])
        let port = Mutex<Int?>(nil)
        private let task = Mutex<Task<Void, any Error>?>(nil)

        init() {}

        func start() async throws -> Int {
            let router = Router()
            router.post("/v1/traces") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 32 << 20)
                self.bodies.withLock { $0.append(String(buffer: body)) }
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
            }
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                  onServerRunning: { channel in self.port.withLock { $0 = channel.localAddress?.port } })
            task.withLock { $0 = Task { try await app.runService() } }
            #expect(try await eventually(10) { self.port.withLock { $0 } != nil }, "the collector listens")
            return try #require(port.withLock { $0 })
        }

        func stop() { task.withLock { $0?.cancel() } }
    }

    /// One exported span: OTLP's JSON form (ids as the exporter wrote them; compared, not read).
    struct ExportedSpan {
        var name: String
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var attributes: [String: String]
        var kind: Int
        var linkedSpanIDs: [String]
    }

    static func spans(in bodies: [String]) throws -> (spans: [ExportedSpan], serviceNames: Set<String>) {
        var spans: [ExportedSpan] = [], services: Set<String> = []
        func value(_ any: Any?) -> String {
            guard let value = any as? [String: Any] else { return "" }
            if let string = value["stringValue"] as? String { return string }
            if let int = value["intValue"] { return "\(int)" }
            return "\(value)"
        }
        for body in bodies {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "a JSON body: \(body.prefix(200))")
            for resource in document["resourceSpans"] as? [[String: Any]] ?? [] {
                for attribute in (resource["resource"] as? [String: Any])?["attributes"] as? [[String: Any]] ?? []
                where attribute["key"] as? String == "service.name" { services.insert(value(attribute["value"])) }
                for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                    for span in scope["spans"] as? [[String: Any]] ?? [] {
                        var attributes: [String: String] = [:]
                        for attribute in span["attributes"] as? [[String: Any]] ?? [] {
                            attributes[attribute["key"] as? String ?? ""] = value(attribute["value"])
                        }
                        spans.append(ExportedSpan(name: span["name"] as? String ?? "", traceID: span["traceId"] as? String ?? "",
                                                  spanID: span["spanId"] as? String ?? "", parentSpanID: span["parentSpanId"] as? String ?? "",
                                                  attributes: attributes, kind: span["kind"] as? Int ?? 0,
                                                  linkedSpanIDs: (span["links"] as? [[String: Any]] ?? []).compactMap { $0["spanId"] as? String }))
                    }
                }
            }
        }
        return (spans, services)
    }

    @Test func aWorkersBatchesAndDecisionsAreExportedWithoutTextAndOnlyWhenConfigured() async throws {
        let collector = Collector()
        let port = try await collector.start()
        defer { collector.stop() }
        try await TestDatabase.with { db in
            let user = "trace-user-7f3a"
            try await db.submitEach([
                EventLine.json("t-sent", "notification.sent", user: user, at: 0, data: """
                    {"request_id":"t-r1","payload":{"aps":{"category":"MESSAGE","alert":{"title":"Ana","body":"alert-text-9c1e"}},"THREAD_ID":"th-1","MESSAGE_ID":"m-1"}}
                    """),
                EventLine.json("t-reply", "notification.response", user: user, at: 10, data: """
                    {"request_id":"t-r1","action":"REPLY_ACTION","text":"reply-text-5d2b","locked":false}
                    """),
            ])
            // Off unless configured: a drain with no OTEL_* setting sends nothing.
            let quiet = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(quiet.status == 0, "\(quiet.standardError)")
            #expect(collector.bodies.withLock { $0 }.isEmpty, "traces exported though none were configured")
            #expect(try await db.scalar("SELECT count(*)::int FROM actiond.outcomes", as: Int.self) == 2)

            try await db.submitEach([
                EventLine.json("t-sent-2", "notification.sent", user: user, at: 20, data: """
                    {"request_id":"t-r2","payload":{"aps":{"category":"MESSAGE","alert":{"title":"Ana","body":"alert-text-9c1e"}},"THREAD_ID":"th-1","MESSAGE_ID":"m-2"}}
                    """),
                EventLine.json("t-reply-2", "notification.response", user: user, at: 30, data: """
                    {"request_id":"t-r2","action":"REPLY_ACTION","text":"reply-text-5d2b","locked":false}
                    """),
            ])
            let traced = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: [
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:\(port)/v1/traces",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
                "OTEL_BSP_SCHEDULE_DELAY": "100",
            ])
            #expect(traced.status == 0, "\(traced.standardError)")
            // The exporter flushes when the worker stops; a collector may still be reading.
            #expect(try await eventually(10) { collector.bodies.withLock { $0 }.joined().contains("actiond.decision") },
                    "the decisions' spans reached the collector: \(traced.standardError)")
            let bodies = collector.bodies.withLock { $0 }
            for secret in ["reply-text-5d2b", "alert-text-9c1e", user] {
                #expect(!bodies.joined().contains(secret), "\(secret) left the process in a span")
            }
            let (spans, services) = try Self.spans(in: bodies)
            #expect(services == ["actiond"])
            let names = Set(spans.map(\.name))
            for name in ["actiond.batch", "actiond.claim", "actiond.seal", "actiond.load", "actiond.decide", "actiond.decision", "actiond.commit"] {
                #expect(names.contains(name), "\(name) among \(names.sorted())")
            }
            let reply = try #require(spans.first { $0.name == "actiond.decision" && $0.attributes["actiond.action"] == "REPLY_ACTION" },
                                     "a reply's decision: \(spans.map { "\($0.name) \($0.attributes)" })")
            #expect(reply.attributes["actiond.category"] == "MESSAGE")
            #expect(reply.attributes["actiond.outcome"] == "applied")
            #expect(reply.attributes["actiond.event.type"] == "notification.response")
            // Its parents: the batch's decide, then the batch, in one trace.
            let decide = try #require(spans.first { $0.spanID == reply.parentSpanID }, "the decision's parent was exported")
            #expect(decide.name == "actiond.decide" && decide.traceID == reply.traceID)
            let batch = try #require(spans.first { $0.spanID == decide.parentSpanID })
            #expect(batch.name == "actiond.batch" && batch.traceID == reply.traceID && batch.parentSpanID.isEmpty)
            #expect(Int(batch.attributes["actiond.batch.events"] ?? "") ?? 0 >= 1)
            #expect(spans.contains { $0.name == "actiond.claim" && $0.parentSpanID == batch.spanID })
        }
    }

    /// An id in W3C hex as the exporter writes it in OTLP's JSON (swift-otel: the bytes in base64).
    static func exported(_ hex: String) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return Data(bytes).base64EncodedString()
    }

    /// A producer that sends its W3C trace context with an event (the envelope's `trace`, by
    /// SQL and by `actiond submit`) finds the event's decision in its own trace, a child of its
    /// span; a resubmission from another trace is the same event (a duplicate).
    @Test func aProducersTraceContextIsTheParentOfItsEventsDecision() async throws {
        let collector = Collector()
        let port = try await collector.start()
        defer { collector.stop() }
        try await TestDatabase.with { db in
            let (traceID, parentID) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
            let (fileTraceID, fileParentID) = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")
            func line(_ id: String, request: String, trace: String, parent: String, at seconds: Int) -> String {
                let sent = EventLine.json(id, "notification.sent", user: "tp-ana", at: seconds, data: """
                    {"request_id":"\(request)","payload":{"aps":{"category":"TIMER_EXPIRED","alert":{"title":"Tea","body":"Tea"}},"TIMER_ID":"\(request)-t"}}
                    """)
                return String(sent.dropLast()) + #","trace":{"traceparent":"00-\#(trace)-\#(parent)-01","tracestate":"vendor=a1"}}"#
            }
            let bySQL = line("tp-1", request: "tp-r1", trace: traceID, parent: parentID, at: 0)
            try await db.submitEach([bySQL])
            #expect(try await db.scalar("SELECT trace ->> 'tracestate' FROM actiond.events WHERE id = 'tp-1'", as: String.self) == "vendor=a1")
            // The same event from another trace (a retry by another request): a duplicate.
            let again = bySQL.replacingOccurrences(of: parentID, with: "1111111111111111")
            #expect(try await db.scalar("SELECT actiond.submit(\(again)::jsonb) ->> 'status'", as: String.self) == "duplicate")
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url,
                                                         input: line("tp-2", request: "tp-r2", trace: fileTraceID, parent: fileParentID, at: 10))
            #expect(submitted.status == 0 && submitted.standardOutput.contains("1 accepted"), "\(submitted.standardOutput) \(submitted.standardError)")

            let traced = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
                "OTEL_BSP_SCHEDULE_DELAY": "100",
            ])
            #expect(traced.status == 0, "\(traced.standardError)")
            #expect(try await eventually(10) {
                let (spans, _) = try Self.spans(in: collector.bodies.withLock { $0 })
                return spans.filter { $0.name == "actiond.decision" }.count >= 2
            }, "both decisions exported")
            let (spans, _) = try Self.spans(in: collector.bodies.withLock { $0 })
            for (trace, parent) in [(traceID, parentID), (fileTraceID, fileParentID)] {
                let decision = try #require(spans.first { $0.name == "actiond.decision" && $0.traceID == Self.exported(trace) },
                                            "a decision in the producer's trace \(trace): \(spans.map { "\($0.name) \($0.traceID)" })")
                #expect(decision.parentSpanID == Self.exported(parent), "the producer's span is its parent")
                #expect(decision.kind == 5, "a consumer's span (OTLP SPAN_KIND_CONSUMER)")
                #expect(decision.attributes["actiond.category"] == "TIMER_EXPIRED" && decision.attributes["actiond.outcome"] == "applied")
                let decide = try #require(spans.first { $0.name == "actiond.decide" && decision.linkedSpanIDs.contains($0.spanID) },
                                          "linked to the batch that decided it")
                #expect(decide.traceID != decision.traceID)
            }
        }
    }

    /// `actiond submit` with traces configured: the file is an `actiond.submit` span (a
    /// producer's) whose context each line without its own carries, so the events' decisions
    /// are its children; a line with its own context keeps it.
    @Test func actiondSubmitsFileIsTheParentOfItsEventsDecisions() async throws {
        let collector = Collector()
        let port = try await collector.start()
        defer { collector.stop() }
        let otel: [String: String?] = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(port)", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
                                       "OTEL_BSP_SCHEDULE_DELAY": "100"]
        try await TestDatabase.with { db in
            let own = ("7d0e6c0c2f3a4b5c8d9e0f1a2b3c4d5e", "1a2b3c4d5e6f7a8b")
            let lines = [
                EventLine.json("fs-1", "protected_data.unavailable", user: "fs-ana", at: 0),
                EventLine.json("fs-2", "protected_data.available", user: "fs-ana", at: 5),
                String(EventLine.json("fs-3", "protected_data.unavailable", user: "fs-bo", at: 0).dropLast())
                    + #","trace":{"traceparent":"00-\#(own.0)-\#(own.1)-01"}}"#,
            ]
            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: lines.joined(separator: "\n"), environment: otel)
            #expect(submitted.status == 0 && submitted.standardOutput.contains("3 accepted"), "\(submitted.standardOutput) \(submitted.standardError)")
            #expect(try await db.scalar("SELECT count(DISTINCT trace ->> 'traceparent')::int FROM actiond.events WHERE id IN ('fs-1', 'fs-2')", as: Int.self) == 1,
                    "the file's lines carry one context")
            #expect(try await db.scalar("SELECT trace ->> 'traceparent' FROM actiond.events WHERE id = 'fs-3'", as: String.self) == "00-\(own.0)-\(own.1)-01")
            let worked = try await ActiondProcess.run(["work", "--drain"], database: db.url, environment: otel)
            #expect(worked.status == 0, "\(worked.standardError)")
            #expect(try await eventually(10) {
                try Self.spans(in: collector.bodies.withLock { $0 }).spans.filter { $0.name == "actiond.decision" }.count >= 3
            }, "the decisions exported")
            let (spans, _) = try Self.spans(in: collector.bodies.withLock { $0 })
            let file = try #require(spans.first { $0.name == "actiond.submit" }, "the file's span: \(spans.map(\.name))")
            #expect(file.kind == 4, "a producer's span (OTLP SPAN_KIND_PRODUCER)")
            #expect(file.attributes["actiond.submit.accepted"] == "3")
            let children = spans.filter { $0.name == "actiond.decision" && $0.parentSpanID == file.spanID && $0.traceID == file.traceID }
            #expect(children.count == 2, "the two lines without a context of their own: \(spans.map { "\($0.name) \($0.parentSpanID)" })")
            #expect(spans.contains { $0.name == "actiond.decision" && $0.traceID == Self.exported(own.0) && $0.parentSpanID == Self.exported(own.1) })
        }
    }
}

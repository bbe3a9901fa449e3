import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// docs/events.md's examples, run as a producer would run them: each built-in category's
/// `notification.sent` beside a response to it, submitted through `actiond.submit` by a
/// producer login, then decided by the workers. A page whose example a worker would reject
/// fails here.
@Suite("Documented event examples", .timeLimit(.minutes(3)))
struct DocumentedEventsTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "docs/events.md")

    /// The `select actiond.submit('…');` statements of the sql block after
    /// `<!-- events-examples: NAME -->`.
    static func examples(_ name: String) throws -> [String] {
        let lines = try String(contentsOf: page, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let marker = try #require(lines.firstIndex(of: "<!-- events-examples: \(name) -->"), "docs/events.md has no example marked \(name)")
        let open = try #require(lines[marker...].firstIndex(of: "```sql"))
        let close = try #require(lines[(open + 1)...].firstIndex(of: "```"))
        let sql = lines[(open + 1)..<close].filter { !$0.hasPrefix("--") }.joined(separator: "\n")
        return sql.components(separatedBy: "');").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }.map { $0 + "')" }
    }

    @Test func eachCategorysNotificationAndResponseAreAcceptedAndApplied() async throws {
        let names = ["meeting", "timer", "message", "general"]
        try await TestDatabase.with { db in
            try await RoleTests.withLogin("actiond_producer", on: db) { producer in
                try await PostgresClient.withClient(producer, maximumConnections: 1, logger: db.logger) { client in
                    for name in names {
                        let statements = try Self.examples(name)
                        #expect(statements.count == 2, "\(name): a notification and a response")
                        #expect(statements.first?.contains("notification.sent") == true, "\(name): the notification comes first")
                        for statement in statements {
                            let answer = try await client.query(PostgresQuery(unsafeSQL: statement), logger: db.logger)
                                .collect().first?.decode(String.self)
                            #expect(answer?.contains(#""status": "accepted""#) == true, "\(name): \(answer ?? "no answer")")
                        }
                    }
                }
            }
            let worker = try await ActiondProcess.run(["work", "--drain"], database: db.url)
            #expect(worker.status == 0, "\(worker.standardError)")
            let outcomes = try await db.outcomes(user: "ana")
            for id in ["sent-req-1", "resp-7f3a", "sent-req-3", "resp-snooze-1", "sent-req-4", "resp-read-1", "sent-req-5", "resp-open-1"] {
                #expect(outcomes[id] == "applied", "\(id): \(outcomes[id] ?? "undecided")")
            }
        }
    }
}

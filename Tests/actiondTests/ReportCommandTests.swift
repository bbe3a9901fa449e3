import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// `actiond report` as a user runs it.
@Suite("actiond report", .timeLimit(.minutes(3)))
struct ReportCommandTests {
    static let reports = ["queue", "throughput", "latency", "outcomes", "dead_letters", "invitations", "timers", "threads", "stash", "trail"]

    /// What a report needs besides its name: the trail shows one person's events.
    static func filter(_ report: String, user: String = "ana") -> [String] {
        report.hasSuffix("trail") ? ["--user", user] : []
    }

    @Test func noReportShowsProtectedTextInAnyFormat() async throws {
        try await TestDatabase.with { db in
            let sent = #"{"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":{"title":"SECRET-TITLE","body":"SECRET-BODY"}},"THREAD_ID":"th","MESSAGE_ID":"m"}}"#
            let input = [
                EventLine.json("s", "notification.sent", user: "ana", data: sent),
                EventLine.json("applied", "notification.response", user: "ana", data: #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"SECRET-APPLIED"}"#),
                EventLine.json("lock", "protected_data.unavailable", user: "ana", data: "{}"),
                EventLine.json("stashed", "notification.response", user: "ana", data: #"{"request_id":"r","action":"REPLY_ACTION","locked":true,"text":"SECRET-STASHED"}"#),
            ].joined(separator: "\n")
            #expect(try await ActiondProcess.run(["submit", "-"], database: db.url, input: input).status == 0)
            #expect(try await ActiondProcess.run(["work", "--drain"], database: db.url).status == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.stash", as: Int.self) == 1)

            for report in Self.reports {
                for format in ["table", "csv", "json"] {
                    let result = try await ActiondProcess.run(["report", report, "--format", format] + Self.filter(report), database: db.url)
                    #expect(result.status == 0, "\(report) \(format): \(result.standardError)")
                    #expect(!result.standardOutput.contains("SECRET"), "\(report) as \(format) shows protected text")
                    if format == "json" {
                        let rows = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(result.standardOutput.utf8))
                        if report == "threads" { #expect(rows.first?["replies"] == .number(1) && rows.first?["messages"] == .number(1)) }
                        if report == "stash" { #expect(rows.first?["pending"] == .number(1) && rows.first?["user_id"] == .string("ana")) }
                        if report == "trail" { #expect(rows.map { $0["status"] } == [.string("decided"), .string("decided"), .string("decided"), .string("stashed")]) }
                    }
                }
            }
        }
    }

    /// A database error reaches the operator as PostgreSQL's code and message, not as
    /// PostgresNIO's generic "PSQLError" sentence.
    @Test func aDatabaseErrorIsNamedByItsCodeAndMessage() async throws {
        try await TestDatabase.with { db in
            let name = try await db.scalar("SELECT current_database()", as: String.self)
            try await db.client.query("ALTER DATABASE \(unescaped: name) SET default_transaction_read_only = on", logger: db.logger).drain()
            let result = try await ActiondProcess.run(["report", "queue"], database: db.url)
            #expect(result.status == 1)
            #expect(result.standardError.contains("\(SQLState.readOnlySQLTransaction): cannot execute"), "\(result.standardError)")
            #expect(!result.standardError.contains("Generic description"), "\(result.standardError)")
        }
    }

    /// A report with no rows still shows its header, however wide (report_invitations is wider
    /// than 80 columns).
    @Test func anEmptyReportShowsItsHeader() async throws {
        try await TestDatabase.with { db in
            let run = try await ActiondProcess.run(["report", "invitations"], database: db.url, environment: ["COLUMNS": "80"])
            #expect(run.standardOutput.hasPrefix("meeting_id | user_id | response"), "\(run.standardOutput)")
            #expect(run.standardOutput.hasSuffix("(0 rows)\n"))
        }
    }

    @Test func listingNamesAndErrors() async throws {
        try await TestDatabase.with { db in
            let list = try await ActiondProcess.run(["report"], database: db.url)
            #expect(list.status == 0)
            for report in Self.reports { #expect(list.standardOutput.contains("report_\(report) "), "\(report)") }
            let csv = try await ActiondProcess.run(["report", "report_queue", "--format", "csv"], database: db.url)
            #expect(csv.standardOutput.hasPrefix("status,events,oldest_age_seconds\r\nqueued,0,0\r\n"), "\(csv.standardOutput)")
            let unknown = try await ActiondProcess.run(["report", "nope"], database: db.url)
            #expect(unknown.status != 0 && unknown.standardError.contains(#"no report named "nope"; known reports: report_dead_letters"#), "\(unknown.standardError)")
            let badFormat = try await ActiondProcess.run(["report", "queue", "--format", "xml"], database: db.url)
            #expect(badFormat.status != 0 && badFormat.standardError.contains("format"))
        }
    }
}

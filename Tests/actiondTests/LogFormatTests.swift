import ActiondPostgres
import ActiondTestSupport
import Foundation
import Testing

/// `--log-format json` (or ACTIOND_LOG_FORMAT=json): every line on standard error is one JSON
/// object with time, level and message (issue 14, item 2).
@Suite("Log format", .timeLimit(.minutes(3)))
struct LogFormatTests {
    /// Each non-empty line of `text` as a JSON object; a line that is not one fails the test.
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            if let object {
                #expect(object["time"] is String && object["level"] is String && object["message"] is String, "\(line)")
            }
            return object
        }
    }

    @Test func everyLineOfAJSONRunParses() async throws {
        try await TestDatabase.with { db in
            let input = [
                EventLine.json("ok", "meeting.cancelled", data: #"{"meeting_id":"m"}"#),
                EventLine.json("bad", "meeting.cancelled", at: "yesterday", data: #"{"meeting_id":"m"}"#),
            ].joined(separator: "\n")
            let submit = try await ActiondProcess.run(["submit", "-", "--log-format", "json"], database: db.url, input: input, logLevel: "debug")
            #expect(submit.status == 1, "a refused line")
            let lines = Self.objects(submit.standardError)
            let refused = lines.filter { $0["message"] as? String == "refused" }
            #expect(refused.count == 1)
            #expect(refused.first?["level"] as? String == "error" && refused.first?["line"] as? String == "2" && refused.first?["sqlstate"] as? String == SQLState.invalidDatetimeFormat.rawValue)
            #expect((refused.first?["reason"] as? String)?.hasPrefix("occurred_at: must be an RFC 3339") == true)

            // The environment sets the format too, for the workers.
            let work = try await ProcessRunner.spawn(TestPaths.actiondExecutable, ["work", "--drain"], environment: [
                "DATABASE_URL": db.url.string, "ACTIOND_LOG_LEVEL": "debug", "ACTIOND_LOG_FORMAT": "json", "ACTIOND_KEY_FILE": TestKeys.path,
            ]).exit()
            #expect(work.status == 0, "\(work.standardError)")
            let workLines = Self.objects(work.standardError)
            #expect(!workLines.isEmpty, "the workers logged at debug level")
            #expect(workLines.contains { $0["level"] as? String == "debug" })
        }
    }

    @Test func anUnknownFormatIsRefused() async throws {
        let nowhere = try DatabaseURL("postgresql://nobody@127.0.0.1:1/none")
        let run = try await ActiondProcess.run(["report", "--log-format", "yaml"], database: nowhere)
        #expect(run.status != 0)
        #expect(run.standardError.contains("--log-format (ACTIOND_LOG_FORMAT) must be text or json"), "\(run.standardError)")
    }

    /// The command line's own answers stay text under JSON logs (the image sets
    /// ACTIOND_LOG_FORMAT=json): help, and a usage error naming the option; a command's own
    /// failure is still one JSON line.
    @Test func helpAndUsageErrorsAreTextWhateverTheFormat() async throws {
        let nowhere = try DatabaseURL("postgresql://nobody@127.0.0.1:1/none")
        let json: [String: String?] = ["ACTIOND_LOG_FORMAT": "json"]
        let help = try await ActiondProcess.run(["--help"], database: nowhere, environment: json)
        #expect(help.status == 0 && help.standardOutput.contains("USAGE:") && help.standardError.isEmpty, "\(help.standardOutput)\(help.standardError)")
        let commandHelp = try await ActiondProcess.run(["work", "--help"], database: nowhere, environment: json)
        #expect(commandHelp.status == 0 && commandHelp.standardOutput.contains("--concurrency"), "\(commandHelp.standardError)")
        let usage = try await ActiondProcess.run(["work", "--no-such-option"], database: nowhere, environment: json)
        #expect(usage.status == 64, "EX_USAGE: \(usage.standardError)")
        #expect(usage.standardError.contains("Error: Unknown option '--no-such-option'") && !usage.standardError.hasPrefix("{"), "\(usage.standardError)")
        // A failure of the command itself: a JSON line.
        let failed = try await ActiondProcess.run(["report", "--log-format", "json"], database: nowhere)
        #expect(failed.status != 0)
        #expect(Self.objects(failed.standardError).contains { $0["level"] as? String == "error" }, "\(failed.standardError)")
    }
}

import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Synchronization
import Testing

/// Who was forgotten, and when, is for the owner and the workers only: any login may LISTEN on
/// any channel and NOTIFY it, so a forget is told on none, and a notification another login
/// sends changes no worker's keys.
@Suite("Forget channels", .timeLimit(.minutes(5)))
struct ForgetChannelTests {
    /// Notifications a listener received, as channel and payload, in order.
    final class Heard: Sendable {
        private let value = Mutex<[(channel: String, payload: String)]>([])
        func add(_ channel: String, _ payload: String) { value.withLock { $0.append((channel, payload)) } }
        var all: [(channel: String, payload: String)] { value.withLock { $0 } }
    }

    /// Every channel actiond's SQL or Swift names for LISTEN or NOTIFY, found in the sources,
    /// and the one forgets were told on before.
    static func channels() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardizedFileURL
        var found: Set<String> = ["actiond_forget", "actiond_wakeup"]
        let patterns = [#"pg_notify\(\s*'([A-Za-z0-9_]+)'"#, #"(?i)\b(?:listen|notify)\s+([a-z_][a-z0-9_]*)"#, #"channel\s*=\s*"([A-Za-z0-9_]+)""#]
        for folder in ["Schema", "Sources"] {
            let enumerator = FileManager.default.enumerator(at: root.appending(path: folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard ["sql", "swift"].contains(url.pathExtension), let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                for pattern in patterns {
                    let regex = try NSRegularExpression(pattern: pattern)
                    for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                        if let range = Range(match.range(at: 1), in: text), text[range].hasPrefix("actiond_") { found.insert(String(text[range])) }
                    }
                }
            }
        }
        return found.sorted()
    }

    /// Listens on each of `channels` on `connection` (noting what arrives in `heard`) while `body` runs.
    static func listening(_ channels: ArraySlice<String>, on connection: PostgresConnection, heard: Heard,
                          _ body: () async throws -> Void) async throws {
        guard let channel = channels.first else { return try await body() }
        try await connection.listen(on: channel) { notifications in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for try await notification in notifications { heard.add(channel, notification.payload) } }
                try await listening(channels.dropFirst(), on: connection, heard: heard, body)
                group.cancelAll()
            }
        }
    }

    @Test func aReaderOnEveryChannelLearnsNothingOfAForgetAndANotifyFromAnotherLoginEvictsNoKey() async throws {
        let keyFile = try ProtectedTextTests.privateKeyFile()
        defer { ProtectedTextTests.remove(keyFile) }
        let environment: [String: String?] = ["ACTIOND_KEY_FILE": keyFile]
        let channels = try Self.channels()
        #expect(channels.contains("actiond_wakeup"))
        try await TestDatabase.with { db in
            let worker = try ActiondProcess.start(["work", "--http-port", "0", "--log-format", "json", "--poll-interval", "0.5"], database: db.url,
                                                  logLevel: "notice", environment: environment)
            let port = try #require(try await HTTPProbe.loggedPort { worker.standardErrorSoFar })
            func cached() async -> Double? {
                OperationsEndpointTests.sample(await HTTPProbe.get(port: port, "/metrics")?.body ?? "", "actiond_key_cache_keys")
            }
            let heard = Heard()
            try await RoleTests.withLogin("actiond_reader", on: db) { reader in
                try await PostgresClient.withClient(reader, maximumConnections: 1, logger: db.logger) { client in
                    try await client.withConnection { connection in
                        try await Self.listening(channels[...], on: connection, heard: heard) {
                          try await RoleTests.withLogin("actiond_producer", on: db) { producer in
                            // The keys are cached only now, every login made and listening
                            // already: a cached key ages out after 60 s, which a loaded machine
                            // could otherwise spend before the checks below.
                            let input = (ProtectedTextTests.conversation("ana", body: "b", replies: ["r"])
                                + ProtectedTextTests.conversation("bea", body: "b", replies: ["r"])).joined(separator: "\n")
                            let submitted = try await ActiondProcess.run(["submit", "-"], database: db.url, input: input, environment: environment)
                            #expect(submitted.status == 0, "\(submitted.standardError)")
                            #expect(try await eventually(30) { await cached() == 2 }, "the worker holds ana's and bea's keys")
                            // Another login's notifications, as the old wake-up of a forget
                            // looked: the reader hears them (it listens), the worker keeps both keys.
                            let spoofed = [try await RoleTests.failure("NOTIFY actiond_forget, 'ana'", as: producer, logger: db.logger),
                                           try await RoleTests.failure("SELECT pg_notify('actiond_forget', 'bea')", as: producer, logger: db.logger)]
                            #expect(spoofed == [nil, nil], "any login may notify")
                            #expect(try await RoleTests.failure("NOTIFY actiond_forget, 'bea'", as: reader, logger: db.logger) == nil)
                            #expect(try await eventually(10) { heard.all.count >= 3 }, "the reader hears what is notified")
                            try await Task.sleep(for: .seconds(2))
                            // No event of theirs runs again, so a key dropped now would not come back:
                            // waiting for 2 only rides out a metrics probe slowed by a busy machine.
                            #expect(try await eventually(10) { await cached() == 2 }, "a notification from another login evicts no key")
                            let before = heard.all.count

                            let forget = try await ActiondProcess.run(["forget", "ana"], database: db.url, environment: environment)
                            #expect(forget.status == 0, "\(forget.standardError)")
                            #expect(try await eventually(15) { await cached() == 1 }, "ana's key leaves the worker's memory, bea's stays")
                            try await Task.sleep(for: .seconds(1))
                            let after = heard.all.dropFirst(before)
                            #expect(!after.contains { $0.payload.contains("ana") }, "no user id on any channel: \(after.map { "\($0.channel): \($0.payload)" })")
                            #expect(!after.contains { $0.channel == "actiond_forget" }, "no forget is told")
                          }
                        }
                    }
                }
            }
            // As a reader, the forgets cannot be asked either.
            let asked = try await RoleTests.withLogin("actiond_reader", on: db) { reader in
                try await RoleTests.failure("SELECT * FROM actiond.forgotten_since(now() - interval '1 hour')", as: reader, logger: db.logger)
            }
            #expect(asked == SQLState.insufficientPrivilege.rawValue)
            worker.send(SIGTERM)
            #expect(try await worker.exit().status == 0)
        }
    }
}

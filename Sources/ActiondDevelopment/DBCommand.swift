import ActiondEmbedded
import ActiondKit
import ActiondTooling
import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Logging
import PostgresNIO
import Foundation

struct DBCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Manage the embedded PostgreSQL cluster.",
        subcommands: [Start.self, Stop.self, Status.self, URLCommand.self, Schema.self])

    struct Schema: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print today's tables, indexes, constraints and types (Schema/schema.sql), from a database migrated for the purpose and dropped after.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let logger = try options.makeLogger()
            let server = try await Database.resolve(options.database, logger: logger)
            let name = "actiond_schema_\(UUID().uuidString.prefix(8).lowercased())"
            try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                try await admin.query("CREATE DATABASE \(unescaped: name)", logger: logger).drain()
            }
            let url = server.with(database: name)
            do {
                try await PostgresClient.withClient(url, maximumConnections: 1, logger: logger) { client in
                    _ = try await Migrator(client: client, logger: logger, handlers: Installed.handlers).migrate()
                }
                print(try await SchemaDump.render(url, binaries: try PostgresBinaries.locate(override: options.binDirectory)), terminator: "")
            } catch {
                try? await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                    try await admin.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger).drain()
                }
                throw error
            }
            try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { admin in
                try await admin.query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger).drain()
            }
        }
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create (first time) and start the embedded cluster.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let logger = try options.makeLogger()
            let cluster = try EmbeddedCluster.locate(directory: options.database.dataDirectory, binDirectory: options.database.binDirectory)
            let url = try await cluster.start(logger: logger)
            print("running: \(url) (data in \(cluster.directory.path))")
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the embedded cluster.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try options.makeLogger()
            let cluster = try EmbeddedCluster.locate(directory: options.database.dataDirectory, binDirectory: options.database.binDirectory)
            print(try cluster.stop() ? "stopped" : "not running")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say whether the embedded cluster exists and runs.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try options.makeLogger()
            let cluster = try EmbeddedCluster.locate(directory: options.database.dataDirectory, binDirectory: options.database.binDirectory)
            switch cluster.status() {
            case .notCreated: print("not created (\(cluster.directory.path))"); throw ExitCode(3)
            case .stopped: print("stopped (\(cluster.directory.path))"); throw ExitCode(3)
            case .running(let port): print("running on 127.0.0.1:\(port) (\(cluster.directory.path))")
            }
        }
    }

    struct URLCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "url", abstract: "Print the running embedded cluster's connection string, password included.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try options.makeLogger()
            let cluster = try EmbeddedCluster.locate(directory: options.database.dataDirectory, binDirectory: options.database.binDirectory)
            print(try cluster.url().string)
        }
    }
}

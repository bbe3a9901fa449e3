import ActiondPostgres
import ArgumentParser
import Foundation

struct DBCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Manage the embedded PostgreSQL cluster.",
        subcommands: [Start.self, Stop.self, Status.self, URLCommand.self])

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create (first time) and start the embedded cluster.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let logger = try options.makeLogger()
            let cluster = try EmbeddedCluster.locate(directory: options.dataDirectory, binDirectory: options.binDirectory)
            let url = try await cluster.start(logger: logger)
            print("running: \(url) (data in \(cluster.directory.path))")
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the embedded cluster.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try options.makeLogger()
            let cluster = try EmbeddedCluster.locate(directory: options.dataDirectory, binDirectory: options.binDirectory)
            print(try cluster.stop() ? "stopped" : "not running")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say whether the embedded cluster exists and runs.")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            _ = try options.makeLogger()
            let cluster = try EmbeddedCluster.locate(directory: options.dataDirectory, binDirectory: options.binDirectory)
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
            let cluster = try EmbeddedCluster.locate(directory: options.dataDirectory, binDirectory: options.binDirectory)
            print(try cluster.url().string)
        }
    }
}

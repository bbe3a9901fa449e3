import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ActiondDomain
import PostgresNIO
import ArgumentParser
import Logging

struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Submit events from a JSON Lines file (or - for standard input), in batches.",
        discussion: """
            Exit status 0 only when no line was refused. Refused lines are printed with their line number and error. \
            Protected text (data.text, and the alert of categories whose handler protects it) is sealed to the \
            intake public key before it leaves this process, so nothing in clear reaches PostgreSQL; --no-seal \
            sends it in clear (workers seal it when they take the event).
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "A JSON Lines file, one event per line, or - for standard input.") var file: String
    @Option(help: "Events per statement.") var batchSize: Int = 1000
    @Option(help: "Statements run at once, each on its own connection, with the events split by user (each user's events stay in order).")
    var connections: Int = 2
    @Flag(name: .customLong("no-seal"), help: "Send protected text in clear, as plain SQL submit does.") var noSeal = false

    func validate() throws {
        guard batchSize >= 1 && batchSize <= 100_000 else { throw ValidationError("--batch-size must be between 1 and 100000") }
        guard connections >= 1 && connections <= 64 else { throw ValidationError("--connections must be between 1 and 64") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        var reader = try JSONLinesReader(path: file)
        var counts: [SubmitResult.Status: Int] = [:]
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            let submitter = EventSubmitter(client: client, logger: logger)
            let sealer = noSeal ? nil : try await envelopeSealer(client: client, logger: logger)
            while true {
                let lines = try reader.next(batchSize * connections)
                if lines.isEmpty { break }
                let texts = try sealer.map { sealer in try lines.map { try sealer.seal($0.text) } } ?? lines.map(\.text)
                let results = try await submitter.submit(texts, connections: connections)
                for (line, result) in zip(lines, results) {
                    counts[result.status, default: 0] += 1
                    if result.status == .refused {
                        if options.logsJSON {
                            logger.error("refused", metadata: ["line": "\(line.number)", "sqlstate": "\(result.errorCode ?? "?")", "reason": "\(result.message ?? "")"])
                        } else {
                            printError("line \(line.number): refused [\(result.errorCode ?? "?")] \(result.message ?? "")")
                        }
                    }
                }
            }
        }
        let accepted = counts[.accepted, default: 0], duplicate = counts[.duplicate, default: 0], refused = counts[.refused, default: 0]
        print("\(accepted + duplicate + refused) events: \(accepted) accepted, \(duplicate) duplicate, \(refused) refused")
        if refused > 0 { throw ExitCode(1) }
    }

    /// Seals to the intake key the workers published, else to the configured key file's;
    /// refuses when there is neither.
    private func envelopeSealer(client: PostgresClient, logger: Logger) async throws -> EnvelopeSealer {
        let key: IntakePublicKey
        if let document = try await KeyStore.intakePublicKey(client: client, logger: logger),
           case .object(let fields)? = try? DomainCoding.decode(JSONValue.self, from: document),
           let id = fields["kid"]?.stringValue, let raw = fields["public_key"]?.stringValue {
            key = try IntakePublicKey(id: id, base64URL: raw)
        } else if let path = try options.keyFilePath() {
            let ring = try options.keyRing(command: "submit", logger: logger)
            guard let own = ring.provider.intakeKeys.first?.publicKey else { throw ValidationError("key file \(path) has no intake key") }
            key = own
        } else {
            throw ValidationError("no intake public key is published yet (a worker publishes its key file's at start): run actiond work once, pass --key-file, or submit with --no-seal")
        }
        let categories = try await CategoryStore.current(on: client, logger: logger)?.registry
        let handler = EventRouter(handlers: Installed.handlers)
        return EnvelopeSealer(key: key) { handler.protectsAlert(category: $0, in: categories) }
    }
}

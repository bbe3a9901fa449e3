import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ActiondDomain
import PostgresNIO
import ArgumentParser
import Foundation
import Logging
import Tracing

struct SubmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "submit",
        abstract: "Submit events from a JSON Lines file (or - for standard input), in batches.",
        discussion: """
            Exit status 0 only when no line was refused. Refused lines are printed with their line number and error. \
            Protected text (data.text, and the alert of categories whose handler protects it) is sealed to an \
            intake public key before it leaves this process, so nothing in clear reaches PostgreSQL. Only a key this \
            producer was given is used: --intake-key FILE (ACTIOND_INTAKE_KEY), else the key file's. The database's \
            published key is used when it is one of those; any other stops the submit before anything is sent. A line \
            that cannot be sealed is refused alone, never sent in clear. --no-seal sends every line in clear, as plain \
            SQL submit does (workers seal it when they take the event).
            """)

    @OptionGroup var options: GlobalOptions
    @Argument(help: "A JSON Lines file, one event per line, or - for standard input.") var file: String
    @Option(help: "Events per statement.") var batchSize: Int = 1000
    @Option(help: "Statements run at once, each on its own connection, with the events split by user (each user's events stay in order).")
    var connections: Int = 2
    @Flag(name: .customLong("no-seal"), help: "Send protected text in clear, as plain SQL submit does.") var noSeal = false
    @Option(name: .customLong("intake-key"), help: ArgumentHelp(
        "A public key file to trust (\(Installed.commandName) keys intake-public-key prints one; one key per line); default: ACTIOND_INTAKE_KEY, else the key file's own keys.",
        valueName: "file"))
    var intakeKeyFile: String?

    func validate() throws {
        guard batchSize >= 1 && batchSize <= 100_000 else { throw ValidationError("--batch-size must be between 1 and 100000") }
        guard connections >= 1 && connections <= 64 else { throw ValidationError("--connections must be between 1 and 64") }
    }

    func run() async throws {
        let logger = try options.makeLogger()
        // With traces configured (OTEL_*, as for `work`), the file is a span whose context each
        // line without one of its own carries on (the envelope's `trace`): the events'
        // decisions are then its children.
        let counts = try await TraceExport.withTracer(environment: ProcessInfo.processInfo.environment, logger: logger) { tracer in
            guard let tracer else { return try await submitFile(trace: nil, logger: logger) }
            return try await Self.span(tracer) { trace in try await submitFile(trace: trace, logger: logger) }
        }
        let accepted = counts[.accepted, default: 0], duplicate = counts[.duplicate, default: 0], refused = counts[.refused, default: 0]
        print("\(accepted + duplicate + refused) events: \(accepted) accepted, \(duplicate) duplicate, \(refused) refused")
        if refused > 0 { throw ExitCode(1) }
    }

    /// `body` inside the file's `actiond.submit` span (a producer's), given the span's context
    /// as the envelope's `trace` field; the span counts what was accepted, duplicate and refused.
    private static func span<Traced: Tracer>(_ tracer: Traced,
                                             _ body: (String?) async throws -> [SubmitResult.Status: Int]) async throws -> [SubmitResult.Status: Int] {
        try await tracer.withSpan("actiond.submit", ofKind: .producer) { span in
            var headers = TraceHeaders()
            tracer.inject(span.context, into: &headers, using: TraceHeaders.Writer())
            let counts = try await body(headers.envelopeField)
            for status in [SubmitResult.Status.accepted, .duplicate, .refused] {
                span.attributes["actiond.submit.\(status.rawValue)"] = counts[status, default: 0]
            }
            return counts
        }
    }

    /// `line` with the envelope field `trace` added, unless it has one (or is not an object:
    /// submit refuses it as it is). The producer's bytes are kept: the field goes in before
    /// the closing brace.
    static func carrying(_ trace: String, _ line: String) -> String {
        guard case .object(let fields)? = try? JSONValue(parsing: line), fields["trace"] == nil,
              let close = line.lastIndex(of: "}") else { return line }
        return String(line[..<close]) + (fields.isEmpty ? "" : ",") + #""trace":"# + trace + String(line[close...])
    }

    /// Submits the file's lines, each carrying `trace` unless it has its own; counts by status.
    private func submitFile(trace: String?, logger: Logger) async throws -> [SubmitResult.Status: Int] {
        var reader = try JSONLinesReader(path: file)
        var counts: [SubmitResult.Status: Int] = [:]
        try await Database.withClient(options.database, logger: logger) { client, _ in
            try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
            let submitter = EventSubmitter(client: client, logger: logger)
            let sealer = noSeal ? nil : try await envelopeSealer(client: client, logger: logger)
            while true {
                let lines = try reader.next(batchSize * connections)
                if lines.isEmpty { break }
                // A line that cannot be sealed is refused alone, here: it is never sent in clear.
                var results = [SubmitResult?](repeating: nil, count: lines.count)
                var texts: [String] = []
                var sent: [Int] = []
                for (index, line) in lines.enumerated() {
                    do {
                        let text = trace.map { Self.carrying($0, line.text) } ?? line.text
                        texts.append(try sealer?.seal(text) ?? text)
                        sent.append(index)
                    } catch let refusal as EnvelopeSealer.Refusal {
                        results[index] = SubmitResult(status: .refused, errorCode: Self.sqlState(of: refusal.rule).rawValue, message: refusal.description)
                    } catch {
                        results[index] = SubmitResult(status: .refused, errorCode: SQLState.invalidParameterValue.rawValue, message: "\(error)")
                    }
                }
                for (index, result) in zip(sent, try await submitter.submit(texts, connections: connections)) { results[index] = result }
                let decided = results.compactMap { $0 }
                for (line, result) in zip(lines, decided) {
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
        return counts
    }

    /// Seals to the intake key the producer pins (`IntakeKeyPin`): the database's published
    /// key when it is pinned, else the pinned one; refuses when nothing is pinned.
    private func envelopeSealer(client: PostgresClient, logger: Logger) async throws -> EnvelopeSealer {
        let pin: IntakeKeyPin
        if let file = intakeKeyFile ?? EnvironmentSettings.current.string("intake-key") {
            pin = IntakeKeyPin(keys: try IntakePublicKey.read(file: file), source: "--intake-key \(file)")
        } else if let path = try options.keyFilePath() {
            let ring = try options.keyRing(command: "submit", logger: logger)
            pin = IntakeKeyPin(keys: ring.provider.intakeKeys.map(\.publicKey), source: "key file \(path)")
        } else {
            throw ValidationError("\(Installed.commandName) submit seals protected text only to an intake key it was given: pass --intake-key FILE (\(Installed.commandName) keys intake-public-key prints one) or --key-file FILE, or send clear text with --no-seal")
        }
        let key = try pin.choose(served: try await KeyStore.intakePublicKey(client: client, logger: logger))
        let categories = try await CategoryStore.current(on: client, logger: logger)?.registry
        let handler = EventRouter(handlers: Installed.handlers)
        return EnvelopeSealer(key: key) { handler.protectsAlert(category: $0, in: categories) }
    }

    /// The SQLSTATE `actiond.submit` gives a line that breaks `rule`, so a line refused here
    /// reads as the same line refused by the database.
    static func sqlState(of rule: EnvelopeSealer.Refusal.Rule) -> SQLState {
        switch rule {
        case .malformed: .invalidParameterValue
        case .nulCharacter: .untranslatableCharacter
        case .numberOutOfRange: .numericValueOutOfRange
        case .notJSON: .invalidTextRepresentation
        }
    }
}

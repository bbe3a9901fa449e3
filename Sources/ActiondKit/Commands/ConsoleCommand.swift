import ActiondConsole
import ActiondPostgres
import ActiondRuntime
import ArgumentParser
import Foundation
import Hummingbird
import Logging

/// `actiond console`: the web console (docs/console.md); `actiond console users …`: its users file.
struct ConsoleCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "console",
        abstract: "Serve the web console: the reports, dead letters, a person's trail, pauses, audit.",
        discussion: """
            Listens on 127.0.0.1:8080 by default. Without a users file it is read-only; on any address but \
            loopback it needs a users file and TLS (--tls-cert, --tls-key) or --behind-proxy. \
            Add people with \(Installed.commandName) console users add NAME --role operator|viewer.
            """,
        subcommands: [Serve.self, Users.self],
        defaultSubcommand: Serve.self) }

    /// Where the users file is: the flag, else ACTIOND_CONSOLE_USERS_FILE, else .actiond/console-users.json.
    struct UsersFileOption: ParsableArguments {
        @Option(name: .customLong("users-file"), help: ArgumentHelp(
            "The console's users file; default: ACTIOND_CONSOLE_USERS_FILE, else .actiond/console-users.json.", valueName: "path"))
        var usersFile: String?

        var path: String { usersFile ?? EnvironmentSettings.current.string("console-users-file") ?? ".actiond/console-users.json" }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve the console (the default).")

        @OptionGroup var options: GlobalOptions
        @OptionGroup var users: UsersFileOption
        @Option(help: ArgumentHelp("HOST:PORT to listen on; default: ACTIOND_CONSOLE_LISTEN, else 127.0.0.1:8080 (port 0: any free port).", valueName: "host:port"))
        var listen: String?
        @Option(name: .customLong("tls-cert"), help: ArgumentHelp("PEM certificate chain to serve HTTPS with; default: ACTIOND_CONSOLE_TLS_CERT.", valueName: "path"))
        var tlsCertificate: String?
        @Option(name: .customLong("tls-key"), help: ArgumentHelp("PEM private key of --tls-cert; default: ACTIOND_CONSOLE_TLS_KEY.", valueName: "path"))
        var tlsKey: String?
        @Flag(name: .customLong("behind-proxy"), help: "Trust the proxy's user header for who signs in (roles from the users file); default: ACTIOND_CONSOLE_BEHIND_PROXY.")
        var behindProxy = false
        @Option(name: .customLong("proxy-user-header"), help: "The header a trusted proxy names the operator in; default: X-Remote-User.")
        var proxyUserHeader: String?
        @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
            "With --behind-proxy, a peer (address range) whose user header is believed; repeat for more; default: ACTIOND_CONSOLE_TRUSTED_PROXY (comma-separated), else loopback only (127.0.0.0/8, ::1).",
            valueName: "cidr"))
        var trustedProxies: [String] = []
        @Option(name: .customLong("public-name"), help: ArgumentHelp(
            "Another name people reach the console by (a proxy's, a published port's), with its port if they type one; repeat for more; default: ACTIOND_CONSOLE_PUBLIC_NAME (comma-separated). The listen address, localhost and the certificate's names are always its names; a request for any other gets no page.",
            valueName: "name[:port]"))
        var publicNames: [String] = []

        func consoleConfiguration() throws -> ConsoleConfiguration {
            let environment = EnvironmentSettings.current
            let listenText = listen ?? environment.string("console-listen") ?? "127.0.0.1:8080"
            guard let address = ConsoleConfiguration.parseListen(listenText) else {
                throw ValidationError("--listen \(listenText.debugDescription) is refused: HOST:PORT, such as 127.0.0.1:8080 or [::1]:8080")
            }
            return ConsoleConfiguration(
                host: address.host, port: address.port, usersFile: users.path,
                tlsCertificate: tlsCertificate ?? environment.string("console-tls-cert"),
                tlsKey: tlsKey ?? environment.string("console-tls-key"),
                behindProxy: try behindProxy || (environment.bool("console-behind-proxy") ?? false),
                proxyUserHeader: proxyUserHeader ?? environment.string("console-proxy-user-header") ?? "X-Remote-User",
                trustedProxies: trustedProxies.isEmpty ? Self.list(environment.string("console-trusted-proxy")) ?? TrustedProxies.loopback : trustedProxies,
                publicNames: publicNames.isEmpty ? Self.list(environment.string("console-public-name")) ?? [] : publicNames)
        }

        /// A comma-separated variable's items.
        static func list(_ text: String?) -> [String]? {
            text.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }

        func run() async throws {
            let logger = try options.makeLogger()
            let configuration = try consoleConfiguration()
            let file: ConsoleUsers
            do { file = try ConsoleUsers.load(users.path) } catch let error as ConsoleUsersError { throw ConsoleCommandError(error.description) }
            // Read again at every request from here on; without people at the start, the
            // console stays read-only (and nobody signs in) until it restarts.
            let people = FileManager.default.fileExists(atPath: users.path) && !file.users.isEmpty
                ? ConsoleUsersFile(path: users.path, logger: logger) : nil
            if let refusal = configuration.refusal(hasUsers: people != nil) {
                throw ConsoleCommandError(refusal)
            }
            try await Database.withClient(options.database, logger: logger) { client, _ in
                try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
                let store = ConsoleStore(client: client, logger: logger)
                let application = try ConsoleServer.application(
                    configuration: configuration, users: people, store: store,
                    reportViews: Installed.handlers.reportViews.map(\.view), logger: logger)
                try await application.runService()
            }
        }
    }

    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "users", abstract: "Manage who may sign in to the console.",
            subcommands: [Add.self, Remove.self, List.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add", abstract: "Add an operator (or change their role and password); the password is read from standard input.",
                discussion: "A running console reads the file again when it changes: a new role applies at the operator's next request. The file is written with mode 0600; the console refuses one that group or others may read.")

            @OptionGroup var users: UsersFileOption
            @Argument(help: "The operator's sign-in name (ASCII letters, digits, . - _ @).") var name: String
            @Option(help: "operator (every page, and retry, discard, pause, resume) or viewer (every page, no action).")
            var role: ConsoleRole

            func run() async throws {
                var file = try ConsoleUsers.load(users.path)
                let password = try PasswordInput.read(prompt: "password for \(name): ")
                do {
                    try file.add(name: name, role: role, password: password)
                } catch let error as ConsoleUsersError {
                    throw ConsoleCommandError(error.description)
                }
                try file.save(to: users.path)
                print("\(name) may sign in to the console as \(role.rawValue) (\(users.path))")
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an operator; a running console refuses their open sessions from their next request.")

            @OptionGroup var users: UsersFileOption
            @Argument(help: "The operator's sign-in name.") var name: String

            func run() async throws {
                var file = try ConsoleUsers.load(users.path)
                guard file.remove(name: name) else { throw ConsoleCommandError("\(name) is not in \(users.path)") }
                try file.save(to: users.path)
                print("\(name) may no longer sign in to the console")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List who may sign in, and their roles.")

            @OptionGroup var users: UsersFileOption

            func run() async throws {
                let file = try ConsoleUsers.load(users.path)
                if file.users.isEmpty { print("nobody: \(users.path) lists no one (the console is read-only on loopback)") }
                for user in file.users { print("\(user.name)\t\(user.role.rawValue)") }
            }
        }
    }
}

extension ConsoleRole: ExpressibleByArgument {}

/// A password read from standard input: without echo at a terminal, else the first line.
enum PasswordInput {
    static func read(prompt: String) throws -> String {
        if isatty(0) == 1, let pointer = getpass(prompt) {
            return String(cString: pointer)
        }
        guard let line = readLine(strippingNewline: true) else {
            throw ConsoleCommandError("no password on standard input: type it, or pipe it in (printf '%s\\n' \"$PASSWORD\" | … console users add …)")
        }
        return line
    }
}

/// A console command's refusal, printed as `Error: SENTENCE`.
struct ConsoleCommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

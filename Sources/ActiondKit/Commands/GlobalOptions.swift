import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ArgumentParser
import Foundation
import Logging

/// Options every command that touches the database takes. Each also reads an `ACTIOND_*`
/// environment variable (`EnvironmentSettings`); the flag wins.
package struct GlobalOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("database-url"), help: ArgumentHelp(
        "postgresql://user@host:port/db; default: ACTIOND_DATABASE_URL, else DATABASE_URL, else the embedded cluster (the development binary only: a production worker needs one). Give the password in DATABASE_URL, PGPASSWORD or a password file (PGPASSFILE, else ~/.pgpass), not here: every local user reads a command line.",
        valueName: "url"))
    package var databaseURL: String?

    @Option(name: .customLong("data-dir"), help: ArgumentHelp(
        "The embedded cluster's folder (the development binary); default: ACTIOND_DATA_DIR, else .actiond/postgres.", valueName: "path"))
    package var dataDirectory: String?

    @Option(name: .customLong("pg-bindir"), help: ArgumentHelp(
        "Folder of PostgreSQL's initdb and pg_ctl; default: ACTIOND_PG_BINDIR, else searched.", valueName: "path"))
    package var binDirectory: String?

    @Option(name: .customLong("key-file"), help: ArgumentHelp(
        "The key file whose KEK wraps users' data keys (\(Installed.commandName) keys new FILE); default: ACTIOND_KEY_FILE, else, for the embedded cluster only, one beside it.",
        valueName: "path"))
    package var keyFile: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical; default: ACTIOND_LOG_LEVEL, else notice.")
    package var logLevelFlag: String?

    @Option(name: .customLong("log-format"), help: "text, or json (one object per line); default: ACTIOND_LOG_FORMAT, else text.")
    package var logFormatFlag: String?

    private var environment: EnvironmentSettings { .current }

    package var logLevel: String { logLevelFlag ?? environment.string("log-level") ?? "notice" }
    package var logFormat: String { logFormatFlag ?? environment.string("log-format") ?? "text" }

    /// Whether logs (and the lines a command reports to standard error) are JSON objects.
    package var logsJSON: Bool { logFormat == "json" }

    /// The database and key file, each flag else its variable: what the runtime is given
    /// (it reads no environment of its own).
    package var database: DatabaseOptions {
        let variables = ProcessInfo.processInfo.environment
        return DatabaseOptions(url: databaseURL ?? environment.databaseURL,
                               dataDirectory: dataDirectory ?? environment.string("data-dir"),
                               binDirectory: binDirectory ?? environment.string("pg-bindir"),
                               keyFile: keyFile ?? environment.string("key-file"),
                               password: variables["PGPASSWORD"],
                               passwordFile: PasswordFile.configured(environment: variables)?.path)
    }

    /// Whether `--database-url` was given on the command line with a password in it, which
    /// every local user can read (`ps`, `/proc/PID/cmdline`).
    var passwordOnCommandLine: Bool {
        guard let databaseURL, let url = try? DatabaseURL(databaseURL) else { return false }
        return url.password != nil
    }

    /// `database`, its connections naming `command` in `pg_stat_activity` (`actiond keys
    /// rotate`), so an operator sees which command holds a connection.
    package func database(command: String) -> DatabaseOptions {
        var options = database
        options.applicationName = "\(Installed.commandName) \(command)"
        return options
    }

    /// The key file a command would use: the configured one, else the embedded cluster's own;
    /// nil for a server database without one.
    package func keyFilePath() throws -> String? {
        try KeyConfiguration.keyFilePath(database: database)
    }

    /// The keys of a command that seals or opens protected text; refused for a server
    /// database without a key file, with a sentence naming the setting.
    package func keyRing(command: String, logger: Logger) throws -> KeyRing {
        try KeyConfiguration.keyRing(database: database, command: command, logger: logger)
    }

    /// Sets up logging to standard error (once per process) and returns the command's logger.
    package func makeLogger() throws -> Logger {
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level (ACTIOND_LOG_LEVEL) must be one of trace, debug, info, notice, warning, error, critical; got \(logLevel)")
        }
        guard ["text", "json"].contains(logFormat) else {
            throw ValidationError("--log-format (ACTIOND_LOG_FORMAT) must be text or json; got \(logFormat)")
        }
        let json = logsJSON
        LoggingSystem.bootstrap { label in
            var handler = ContentFreeLogHandler(json ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label))
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "actiond")
        if passwordOnCommandLine {
            logger.warning("--database-url carries a password, which every local user can read on the command line: give it in DATABASE_URL (from an env file of mode 0600), PGPASSWORD or a password file (PGPASSFILE, else ~/.pgpass) instead")
        }
        return logger
    }
}

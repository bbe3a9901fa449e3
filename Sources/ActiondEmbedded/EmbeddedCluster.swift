import ActiondPostgres
import Foundation
import Logging
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster that actiond creates and runs itself from the machine's server
/// programs, so `swift run actiond demo` works with no setup.
///
/// The folder it owns (default `.actiond/postgres`) holds `data/` (the cluster), `password`
/// (the generated password of the `actiond` role), `server.log` and `lock`. The server
/// listens on 127.0.0.1 only, on a free port chosen at start, with password authentication.
/// It keeps running after the command that started it, and later commands reuse it.
///
/// PostgreSQL refuses to run as root: under root, actiond runs the server programs as the
/// unprivileged `postgres` account that distribution packages create.
package struct EmbeddedCluster: Sendable {
    /// Where the cluster lives when neither `--data-dir` nor `ACTIOND_DATA_DIR` says otherwise.
    package static let defaultDirectory = ".actiond/postgres"
    /// The role and database actiond uses.
    package static let roleName = "actiond"
    package static let databaseName = "actiond"

    package enum Status: Sendable, Equatable {
        case notCreated
        case stopped
        case running(port: Int)
    }

    package let directory: URL
    package let binaries: PostgresBinaries
    /// The account the server programs run as when actiond runs as root.
    let serverAccount: String?

    var dataDirectory: URL { directory.appending(path: "data") }
    var passwordFile: URL { directory.appending(path: "password") }
    var logFile: URL { directory.appending(path: "server.log") }
    /// The port of the last start, used again when free so the URL stays the same.
    var portFile: URL { directory.appending(path: "port") }

    /// The folder the default would have been, when the cluster was moved to one the
    /// `postgres` account can reach (see `defaultLocation(workingDirectory:asRoot:)`).
    package var relocatedFrom: String?

    package init(directory: URL, binaries: PostgresBinaries, relocatedFrom: String? = nil) {
        self.directory = directory.standardizedFileURL
        self.binaries = binaries
        self.serverAccount = geteuid() == 0 ? "postgres" : nil
        self.relocatedFrom = relocatedFrom
    }

    /// The cluster in `directory` (as configured: `--data-dir`, else `ACTIOND_DATA_DIR`), else in
    /// the default folder for the current directory; its server programs in `binDirectory`, else searched.
    package static func locate(directory: String? = nil, binDirectory: String? = nil) throws -> EmbeddedCluster {
        let binaries = try PostgresBinaries.locate(override: binDirectory)
        let workingDirectory = FileManager.default.currentDirectoryPath
        if let path = directory, !path.isEmpty {
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: workingDirectory).appending(path: path)
            return EmbeddedCluster(directory: url, binaries: binaries)
        }
        let chosen = defaultLocation(workingDirectory: workingDirectory, asRoot: geteuid() == 0)
        return EmbeddedCluster(directory: URL(fileURLWithPath: chosen.path), binaries: binaries, relocatedFrom: chosen.relocatedFrom)
    }

    /// `.actiond/postgres` under `workingDirectory`; but as root, when the `postgres` account
    /// (which runs the server then) cannot reach `workingDirectory` (a project under `/root`),
    /// a folder in `/var/tmp` named after it: the same for every command run from there, so
    /// `db stop` finds the cluster `demo` started. `relocatedFrom` is the folder not used.
    package static func defaultLocation(workingDirectory: String, asRoot: Bool) -> (path: String, relocatedFrom: String?) {
        let inProject = URL(fileURLWithPath: workingDirectory).appending(path: defaultDirectory).path
        guard asRoot, !ServerAccountReach.isReachableByOthers(workingDirectory) else { return (inProject, nil) }
        return (ServerAccountReach.standIn(for: workingDirectory, prefix: "actiond") + "/postgres", inProject)
    }

    // MARK: - Lifecycle

    /// Creates the cluster if needed, starts it if it is not running, makes sure the
    /// `actiond` database exists, and returns its URL. Safe to call from several processes at once.
    package func start(logger: Logger) async throws -> DatabaseURL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let lock = try FileLock(path: directory.appending(path: "lock").path)
        defer { lock.unlock() }

        if !FileManager.default.fileExists(atPath: dataDirectory.appending(path: "PG_VERSION").path) {
            try create(logger: logger)
        }
        let port: Int
        if case .running(let running) = status() {
            port = running
        } else {
            port = try launch(logger: logger)
        }
        let server = try url(port: port, database: "postgres")
        try await ensureDatabase(server, logger: logger)
        return server.with(database: Self.databaseName)
    }

    /// Stops the server (fast shutdown: open sessions are ended, data is flushed).
    /// Returns false when it was not running.
    @discardableResult
    package func stop() throws -> Bool {
        guard case .running = status() else { return false }
        let result = try runServerProgram(binaries.pgCtl, ["stop", "-D", dataDirectory.path, "-m", "fast", "-w", "-t", "60"])
        guard result.status == 0 else {
            throw EmbeddedClusterError(.commandFailed, "pg_ctl stop failed (exit \(result.status)):\n\(result.output)")
        }
        return true
    }

    /// Crashes the server on purpose (`pg_ctl stop -m immediate`: every server process quits
    /// at once, nothing is flushed, and the next start replays the WAL as after a power cut).
    /// For the chaos soak (`actiond bench --chaos`), never for an operator's stop.
    package func crash() throws {
        guard case .running = status() else {
            throw EmbeddedClusterError(.notRunning, "the embedded cluster in \(directory.path) is not running")
        }
        let result = try runServerProgram(binaries.pgCtl, ["stop", "-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "60"])
        guard result.status == 0 else {
            throw EmbeddedClusterError(.commandFailed, "pg_ctl stop -m immediate failed (exit \(result.status)):\n\(result.output)")
        }
    }

    package func status() -> Status {
        guard FileManager.default.fileExists(atPath: dataDirectory.appending(path: "PG_VERSION").path) else { return .notCreated }
        guard let result = try? runServerProgram(binaries.pgCtl, ["status", "-D", dataDirectory.path]), result.status == 0,
              let port = runningPort() else { return .stopped }
        return .running(port: port)
    }

    /// The URL of the `actiond` database while the server runs.
    package func url() throws -> DatabaseURL {
        guard case .running(let port) = status() else {
            throw EmbeddedClusterError(.notRunning, "the embedded cluster in \(directory.path) is not running; start it with `actiond db start`")
        }
        return try url(port: port, database: Self.databaseName)
    }

    // MARK: - Steps

    private func create(logger: Logger) throws {
        logger.notice("creating embedded PostgreSQL cluster", metadata: ["directory": "\(directory.path)"])
        let files = FileManager.default
        if files.fileExists(atPath: dataDirectory.path) {
            try files.removeItem(at: dataDirectory)  // left over from an initdb that did not finish
        }
        try files.createDirectory(at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try handToServerAccount(dataDirectory)
        if let serverAccount {
            try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            let reach = try runServerProgram(URL(fileURLWithPath: "/usr/bin/test"), ["-w", dataDirectory.path])
            guard reach.status == 0 else {
                throw EmbeddedClusterError(.dataDirectoryUnreachable, """
                    PostgreSQL refuses to run as root, so actiond runs it as the '\(serverAccount)' account, \
                    but that account cannot reach \(dataDirectory.path) (a parent folder is closed to it).
                    Choose a data folder it can reach, e.g. `--data-dir /var/tmp/actiond` or ACTIOND_DATA_DIR=/var/tmp/actiond, \
                    run actiond as an unprivileged user, or use an existing server with DATABASE_URL.
                    """)
            }
        }

        let password = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()
        try Data(password.utf8).write(to: passwordFile, options: .atomic)
        try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile.path)
        let passwordInput = directory.appending(path: "initdb-password")
        try Data(password.utf8).write(to: passwordInput)
        try files.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordInput.path)
        try handToServerAccount(passwordInput)
        defer { try? files.removeItem(at: passwordInput) }

        let result = try runServerProgram(binaries.initdb, [
            "-D", dataDirectory.path, "-U", Self.roleName, "--pwfile=\(passwordInput.path)",
            "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C",
        ])
        guard result.status == 0 else {
            throw EmbeddedClusterError(.commandFailed, "initdb failed (exit \(result.status)):\n\(result.output)")
        }
    }

    private func launch(logger: Logger) throws -> Int {
        let previous = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0.trimmingWhitespace()) }
        let port = try previous.flatMap { try? Self.freePort(preferring: UInt16(clamping: $0)) } ?? Self.freePort()
        // The server's log is for its owner only (0600; an older cluster's file is made so in
        // ensureDatabase, after every start).
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        try handToServerAccount(logFile)
        logger.notice("starting embedded PostgreSQL", metadata: ["directory": "\(directory.path)", "port": "\(port)"])
        let options = [
            "-p \(port)", "-c listen_addresses=127.0.0.1", "-c unix_socket_directories=''",
            // The test suite runs every suite at once, each with its pools and child processes:
            // 300 ran out under load (53300 in CI rehearsals).
            "-c max_connections=1000",
        ] + Self.serverSettings.map { "-c \($0)" }
        let result = try runServerProgram(binaries.pgCtl, [
            "start", "-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "60", "-o", options.joined(separator: " "),
        ])
        guard result.status == 0 else {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            let tail = log.split(separator: "\n").suffix(15).joined(separator: "\n")
            throw EmbeddedClusterError(.commandFailed, "pg_ctl start failed (exit \(result.status)):\n\(result.output)\n\(logFile.path):\n\(tail)")
        }
        try? Data("\(port)\n".utf8).write(to: portFile, options: .atomic)
        return port
    }

    /// The embedded server's sizing, for a workload that writes several rows per event
    /// (measured with `actiond bench` on a 1,000,000-event backlog): a buffer cache that holds
    /// the working set of a large backlog (at 128 MB, the default, backends wrote evicted pages
    /// themselves, two per event); checkpoints far enough apart that pages are not copied into
    /// the WAL again and again (at 1 GB of WAL between checkpoints, full-page images were 45 %
    /// of the WAL); those images compressed (lz4). Durability is unchanged: fsync and
    /// synchronous_commit stay on. Set at every start, so a cluster an earlier build made gets them.
    static let serverSettings = [
        "shared_buffers=1GB", "max_wal_size=8GB", "min_wal_size=256MB", "checkpoint_timeout=15min",
        "checkpoint_completion_target=0.9", "wal_compression=lz4", "wal_buffers=64MB",
    ]

    /// What the server logs, so that no event content reaches its log: a failing statement's
    /// text (which may be a literal `submit` of a reply) is never logged, nor an error's
    /// DETAIL and CONTEXT (which may quote a row's values or the JSON that failed to parse);
    /// log files it creates itself are its owner's only. Set in the cluster's configuration
    /// (ALTER SYSTEM) after every start where they differ, so a server an earlier build
    /// created gets them too, and they hold however the server is started.
    static let logSettings = ["log_min_error_statement=panic", "log_error_verbosity=terse", "log_file_mode=0600"]

    private func ensureDatabase(_ server: DatabaseURL, logger: Logger) async throws {
        try await PostgresClient.withClient(server, maximumConnections: 1, logger: logger) { client in
            let exists = try await client.query(
                "SELECT 1 FROM pg_database WHERE datname = \(Self.databaseName)", logger: logger).collect()
            if exists.isEmpty {
                try await client.query("CREATE DATABASE \(unescaped: Self.databaseName)", logger: logger).drain()
            }
            for setting in Self.logSettings {
                let (name, value) = (String(setting.prefix { $0 != "=" }), String(setting.drop { $0 != "=" }.dropFirst()))
                let current = try await client.query("SELECT current_setting(\(name))", logger: logger).collect().first?.decode(String.self)
                if current != value {
                    try await client.query(PostgresQuery(unsafeSQL: "ALTER SYSTEM SET \(name) = '\(value)'"), logger: logger).drain()
                    try await client.query("SELECT pg_reload_conf()", logger: logger).drain()
                }
            }
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: logFile.path)
    }

    // MARK: - Helpers

    private func url(port: Int, database: String) throws -> DatabaseURL {
        guard let password = try? String(contentsOf: passwordFile, encoding: .utf8) else {
            throw EmbeddedClusterError(.commandFailed, "\(passwordFile.path) is missing; remove \(directory.path) to create the cluster again")
        }
        return DatabaseURL(host: "127.0.0.1", port: port, username: Self.roleName,
                           password: password.trimmingWhitespace(), database: database, tls: .disable)
    }

    /// The port from `postmaster.pid` (its fourth line).
    private func runningPort() -> Int? {
        guard let pid = try? String(contentsOf: dataDirectory.appending(path: "postmaster.pid"), encoding: .utf8) else { return nil }
        let lines = pid.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count > 3 ? Int(lines[3].trimmingCharacters(in: .whitespaces)) : nil
    }

    private func runServerProgram(_ program: URL, _ arguments: [String]) throws -> ProcessRunner.Output {
        guard let serverAccount else { return try ProcessRunner.run(program, arguments) }
        guard getpwnam(serverAccount) != nil else {
            throw EmbeddedClusterError(.noUnprivilegedAccount, """
                PostgreSQL refuses to run as root and there is no '\(serverAccount)' account to run it as.
                Create one (`useradd --system --home /var/lib/postgresql postgres`, or install the postgresql package), \
                run actiond as an unprivileged user, or use an existing server with DATABASE_URL.
                """)
        }
        guard let runuser = PostgresBinaries.findOnPath("runuser") else {
            throw EmbeddedClusterError(.noUnprivilegedAccount, "running as root needs `runuser` (util-linux) to start PostgreSQL as '\(serverAccount)'; install util-linux or run actiond as an unprivileged user")
        }
        return try ProcessRunner.run(runuser, ["-u", serverAccount, "--", program.path] + arguments)
    }

    private func handToServerAccount(_ url: URL) throws {
        guard let serverAccount, let account = getpwnam(serverAccount) else { return }
        try FileManager.default.setAttributes(
            [.ownerAccountID: Int(account.pointee.pw_uid), .groupOwnerAccountID: Int(account.pointee.pw_gid)],
            ofItemAtPath: url.path)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on right now: `preferring` if it is free.
    static func freePort(preferring preferred: UInt16 = 0) throws -> Int {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw EmbeddedClusterError(.commandFailed, "cannot open a socket to find a free port") }
        defer { close(socketDescriptor) }
        // As PostgreSQL does for its listening socket: connections of a stopped server left
        // in TIME_WAIT must not make its port look taken.
        var reuse: Int32 = 1
        setsockopt(socketDescriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = preferred.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw EmbeddedClusterError(.commandFailed, "cannot bind 127.0.0.1:\(preferred) to find a free port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

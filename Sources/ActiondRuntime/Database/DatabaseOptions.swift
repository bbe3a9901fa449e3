/// Where actiond's database is and which key file goes with it, as the command line resolved
/// them (flag, else environment variable): the runtime reads no environment of its own.
package struct DatabaseOptions: Sendable, Hashable {
    /// `--database-url`, else `ACTIOND_DATABASE_URL`, else `DATABASE_URL`; nil means the embedded cluster.
    package var url: String?
    /// The embedded cluster's folder (`--data-dir`, else `ACTIOND_DATA_DIR`, else `.actiond/postgres`).
    package var dataDirectory: String?
    /// The PostgreSQL server programs' folder (`--pg-bindir`, else `ACTIOND_PG_BINDIR`, else searched).
    package var binDirectory: String?
    /// The key file (`--key-file`, else `ACTIOND_KEY_FILE`); nil means the embedded cluster's own, or none.
    package var keyFile: String?
    /// Connections in the pool.
    package var maximumConnections: Int
    /// What the connections call themselves to the server (`application_name`, seen in
    /// `pg_stat_activity`); nil leaves it unset.
    package var applicationName: String?
    /// The password for a URL that carries none (`PGPASSWORD`), checked before `passwordFile`.
    package var password: String?
    /// The password file for a URL that carries no password (`PGPASSFILE`, else `~/.pgpass`).
    package var passwordFile: String?

    package init(url: String? = nil, dataDirectory: String? = nil, binDirectory: String? = nil, keyFile: String? = nil,
                 maximumConnections: Int = 20, applicationName: String? = nil,
                 password: String? = nil, passwordFile: String? = nil) {
        self.url = url.flatMap { $0.isEmpty ? nil : $0 }
        self.dataDirectory = dataDirectory
        self.binDirectory = binDirectory
        self.keyFile = keyFile.flatMap { $0.isEmpty ? nil : $0 }
        self.maximumConnections = maximumConnections
        self.applicationName = applicationName
        self.password = password.flatMap { $0.isEmpty ? nil : $0 }
        self.passwordFile = passwordFile
    }
}

/// Where actiond's database is: an explicit connection string, or the embedded cluster.
package struct DatabaseOptions: Sendable, Hashable {
    /// `--database-url`, else `DATABASE_URL`; nil means the embedded cluster.
    package var url: String?
    /// The embedded cluster's folder (`--data-dir`, else `ACTIOND_DATA_DIR`, else `.actiond/postgres`).
    package var dataDirectory: String?
    /// The PostgreSQL server programs' folder (`--pg-bindir`, else `ACTIOND_PG_BINDIR`, else searched).
    package var binDirectory: String?
    /// Connections in the pool.
    package var maximumConnections: Int

    package init(url: String? = nil, dataDirectory: String? = nil, binDirectory: String? = nil, maximumConnections: Int = 20) {
        self.url = url
        self.dataDirectory = dataDirectory
        self.binDirectory = binDirectory
        self.maximumConnections = maximumConnections
    }
}

/// Where actiond's database is: an explicit connection string, or the embedded cluster.
public struct DatabaseOptions: Sendable, Hashable {
    /// `--database-url`, else `DATABASE_URL`; nil means the embedded cluster.
    public var url: String?
    /// The embedded cluster's folder (`--data-dir`, else `ACTIOND_DATA_DIR`, else `.actiond/postgres`).
    public var dataDirectory: String?
    /// The PostgreSQL server programs' folder (`--pg-bindir`, else `ACTIOND_PG_BINDIR`, else searched).
    public var binDirectory: String?
    /// Connections in the pool.
    public var maximumConnections: Int

    public init(url: String? = nil, dataDirectory: String? = nil, binDirectory: String? = nil, maximumConnections: Int = 20) {
        self.url = url
        self.dataDirectory = dataDirectory
        self.binDirectory = binDirectory
        self.maximumConnections = maximumConnections
    }
}

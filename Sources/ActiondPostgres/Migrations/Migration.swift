/// One numbered schema file (`Schema/NNN_name.sql`), embedded into the binary at build time.
package struct Migration: Sendable, Hashable {
    /// The number before the first underscore: migrations apply in this order, each once.
    package var version: Int
    /// The file name, e.g. `001_event_log.sql`.
    package var name: String
    package var sql: String

    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// The migrations this build ships, in order.
    package static let all: [Migration] = EmbeddedResources.schemaFiles.map { file in
        // File names are checked by a test: three digits, an underscore, a name.
        Migration(version: Int(file.name.prefix { $0.isNumber }) ?? 0, name: file.name, sql: file.sql)
    }.sorted { $0.version < $1.version }

    /// Statements in file order, for PostgresNIO's one-statement-per-query protocol.
    package var statements: [String] { SQLStatementSplitter.split(sql) }
}

import Foundation
import PostgresNIO

// The statements a worker sends for every batch, prepared once per connection (PostgreSQL
// parses and plans each once per session instead of on every batch: about 150 µs of server
// time a batch, measured with pg_stat_statements' planning times). Workers connect in session
// mode (docs/operations.md, "Pooling"), which keeps a connection's prepared statements.

/// `claim_batch`: the claim and its users' keys (WorkQueue.claim).
struct ClaimBatchStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT kind, position, user_id, attempts, id, type, occurred_at, data, submitted_at, category_version, database_now,
               key_version, kek_id, wrapped, new_key_allowed
        FROM actiond.claim_batch($1, $2, $3)
        """
    typealias Row = (String, Int64?, String, Int?, String?, String?, Date?, String?, Date?, Int?, Date?, Int?, String?, ByteBuffer?, Bool?)

    var maxUsers: Int64
    var maxEvents: Int64
    var onlyUser: String?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(maxUsers)
        bindings.append(maxEvents)
        bindings.append(onlyUser)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// `load_streams`: the shared rows locked, then the projection rows asked for (ProjectionStore.load).
struct LoadStreamsStatement: PostgresPreparedStatement {
    static let sql = """
        SELECT kind, stream_id, user_id, state, last_position, written_by
        FROM actiond.load_streams($1, $2, $3, $4, $5)
        """
    typealias Row = (String, String, String, String, Int64, Int64)

    var lockKinds: [String]
    var lockIDs: [String]
    var kinds: [String]
    var ids: [String]
    var users: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        for array in [lockKinds, lockIDs, kinds, ids, users] { bindings.append(array) }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// `commit_batch`: everything a batch decided (BatchWrite.commit).
struct CommitBatchStatement: PostgresPreparedStatement {
    static let sql = "SELECT actiond.commit_batch($1::jsonb)"
    typealias Row = Int64

    var document: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(document)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
}

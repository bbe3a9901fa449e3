import ActiondDomain
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// The database side of protected text (Schema/functions: load_keys, forget_keys,
/// allow_new_key, intake keys, rotation): wrapped data keys and fences. The KEK never comes
/// here; every key read or written is wrapped.
package enum KeyStore {
    /// The wrapped keys and fences of `users`, in the caller's transaction.
    package static func load(users: [String], on connection: PostgresConnection, logger: Logger) async throws
        -> (keys: [StoredDataKey], fences: [ForgottenUser]) {
        guard !users.isEmpty else { return ([], []) }
        var keys: [StoredDataKey] = []
        var fences: [ForgottenUser] = []
        let rows = try await connection.query(
            "SELECT kind, user_id, version, kek_id, wrapped, new_key_allowed FROM actiond.load_keys(\(users))", logger: logger)
        for try await (kind, user, version, kek, wrapped, allowed) in rows.decode((String, String, Int, String?, ByteBuffer?, Bool?).self) {
            if kind == "fence" {
                fences.append(ForgottenUser(userID: user, throughVersion: version, newKeyAllowed: allowed ?? false))
            } else if let kek, let wrapped {
                keys.append(StoredDataKey(userID: user, version: version, kekID: kek, wrapped: Data(wrapped.readableBytesView)))
            }
        }
        return (keys, fences)
    }

    /// Deletes `user`'s data keys (at least through `through`) and writes the fence; returns
    /// the last version destroyed. In the forget's transaction.
    package static func forget(user: String, through: Int, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        try await connection.query("SELECT actiond.forget_keys(\(user), \(through)::integer)", logger: logger).collect().first?.decode(Int.self) ?? 0
    }

    /// The users forgotten (again) at or after `since` (none when nil), and the database's time
    /// of the look: a worker's key cache keeper drops their cached keys.
    package static func forgottenSince(_ since: Date?, on connection: PostgresConnection, logger: Logger) async throws -> (users: [String], checkedAt: Date) {
        let rows = try await connection.query("SELECT users, checked_at FROM actiond.forgotten_since(\(since)::timestamptz)", logger: logger).collect()
        guard let row = rows.first else { return ([], Date()) }
        let (users, checkedAt) = try row.decode(([String], Date).self)
        return (users, checkedAt)
    }

    /// Allows `user` a new key after a forget; returns the fence's last destroyed version.
    package static func allowNewKey(user: String, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        try await connection.query("SELECT actiond.allow_new_key(\(user))", logger: logger).collect().first?.decode(Int.self) ?? 0
    }

    /// Publishes the intake public key producers seal to, when this login may (the owner);
    /// a worker login may not, and publishes nothing.
    package static func publish(_ key: IntakePublicKey, client: PostgresClient, logger: Logger) async throws {
        let allowed = try await client.query("SELECT has_function_privilege('actiond.publish_intake_key(text, jsonb)', 'execute')",
                                             logger: logger).collect().first?.decode(Bool.self) ?? false
        guard allowed else { return }
        try await client.query("SELECT actiond.publish_intake_key(\(key.id), \(key.document)::jsonb)", logger: logger).drain()
    }

    /// The id of the intake key published now, read in the caller's transaction.
    package static func publishedIntakeKeyID(on connection: PostgresConnection, logger: Logger) async throws -> String? {
        try await connection.query("SELECT actiond.intake_public_key() ->> 'kid'", logger: logger).collect().first?.decode(String?.self)
    }

    /// The current intake public key's document; nil before a worker published one.
    package static func intakePublicKey(client: PostgresClient, logger: Logger) async throws -> String? {
        try await client.query("SELECT actiond.intake_public_key()::text", logger: logger).collect().first?.decode(String?.self)
    }

    /// A page of keys with no wrapping under `kekID`, after `after` in key order.
    package static func keysToRewrap(kekID: String, after: (user: String, version: Int), page: Int,
                                     client: PostgresClient, logger: Logger) async throws -> [StoredDataKey] {
        var keys: [StoredDataKey] = []
        let rows = try await client.query("""
            SELECT user_id, version, kek_id, wrapped FROM actiond.keys_to_rewrap(\(kekID), \(after.user), \(after.version)::integer, \(page)::integer)
            """, logger: logger)
        for try await (user, version, kek, wrapped) in rows.decode((String, Int, String, ByteBuffer).self) {
            keys.append(StoredDataKey(userID: user, version: version, kekID: kek, wrapped: Data(wrapped.readableBytesView)))
        }
        return keys
    }

    /// Stores new wrappings (under one KEK) beside the old ones; returns how many.
    package static func addWrappings(_ keys: [StoredDataKey], kekID: String, client: PostgresClient, logger: Logger) async throws -> Int {
        let wrappings = keys.map { ByteBuffer(bytes: $0.wrapped) }
        return try await client.query("""
            SELECT actiond.add_key_wrappings(\(keys.map(\.userID)), \(keys.map(\.version))::integer[], \(kekID), \(wrappings))
            """, logger: logger).collect().first?.decode(Int.self) ?? 0
    }

    /// The workers connected now that hold a KEK other than `kekID` (as their own, or as the one
    /// they are retiring), by login and KEKs, with their connection counts. Only workers' and
    /// the owner's sessions count (`workers_on_other_keks`): another login that names a KEK in
    /// its application_name is not taken for a worker.
    package static func workersOnOtherKEKs(_ kekID: String, client: PostgresClient,
                                           logger: Logger) async throws -> [(login: String, keks: String, connections: Int)] {
        var found: [(login: String, keks: String, connections: Int)] = []
        let rows = try await client.query("SELECT login, keks, connections FROM actiond.workers_on_other_keks(\(kekID))", logger: logger)
        for try await (login, keks, count) in rows.decode((String, String, Int64).self) { found.append((login, keks, Int(count))) }
        return found
    }

    /// Whether `keys rotate --retire-old` retired KEK `kekID`.
    package static func isRetired(_ kekID: String, client: PostgresClient, logger: Logger) async throws -> Bool {
        try await client.query("SELECT actiond.kek_is_retired(\(kekID))", logger: logger)
            .collect().first?.decode(Bool.self) ?? false
    }

    /// The KEKs `keys rotate --retire-old` retired, in the order retired.
    package static func retiredKEKs(client: PostgresClient, logger: Logger) async throws -> [String] {
        try await client.query("SELECT kek_id FROM actiond.retired_keks ORDER BY retired_at, kek_id", logger: logger)
            .collect().map { try $0.decode(String.self) }
    }

    /// Deletes every wrapping not under `kekID` (refused while some key lacks one); returns how many.
    /// Refused while a worker holds another KEK. `retiring`: KEKs recorded as retired even with
    /// no wrapping left under them.
    package static func retireWrappings(keepingKEK kekID: String, retiring: [String], client: PostgresClient, logger: Logger) async throws -> Int {
        try await client.query("SELECT actiond.retire_key_wrappings(\(kekID), \(retiring)::text[])", logger: logger).collect().first?.decode(Int.self) ?? 0
    }
}

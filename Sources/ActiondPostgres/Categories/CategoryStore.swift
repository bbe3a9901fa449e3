import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// Stores validated category registries as versions, and reads the current one back.
package enum CategoryStore {
    /// The outcome of a load.
    package struct LoadResult: Sendable, Equatable {
        /// The current version after the load.
        package var version: Int
        /// True when the file equals the current version, so no new version was written.
        package var unchanged: Bool
    }

    /// Stores `registry` as a new version in one transaction (loads are serialised by a
    /// table lock, so versions commit in order). The previous version stays for history.
    package static func load(_ registry: CategoryRegistry, on connection: PostgresConnection, logger: Logger) async throws -> LoadResult {
        let document = String(decoding: registry.canonicalJSON(), as: UTF8.self)
        let rows = String(decoding: try JSONEncoder().encode(registry.categories.map { CategoryRow($0, requiredPayloadKeys: registry.requiredPayloadKeys[ExactString($0.identifier)] ?? []) }), as: UTF8.self)
        return try await connection.transaction(logger: logger) { connection in
            try await connection.query("LOCK TABLE actiond.category_versions IN EXCLUSIVE MODE", logger: logger).drain()
            let current = try await connection.query("""
                SELECT version, checksum = encode(sha256(convert_to(\(document), 'UTF8')), 'hex')
                FROM actiond.category_versions ORDER BY version DESC LIMIT 1
                """, logger: logger).collect().first?.decode((Int, Bool).self)
            if let current, current.1 {
                return LoadResult(version: current.0, unchanged: true)
            }
            let version = try await connection.query("""
                INSERT INTO actiond.category_versions (checksum, document)
                VALUES (encode(sha256(convert_to(\(document), 'UTF8')), 'hex'), \(document)::jsonb)
                RETURNING version
                """, logger: logger).collect().first!.decode(Int.self)
            try await connection.query("""
                INSERT INTO actiond.categories (version, category, options, handler, settings, required_payload_keys)
                SELECT \(version), c.category, c.options, c.handler, c.settings, c.required_payload_keys
                FROM jsonb_to_recordset(\(rows)::jsonb)
                     AS c(category text, options text[], handler text, settings jsonb, required_payload_keys text[])
                """, logger: logger).drain()
            try await connection.query("""
                INSERT INTO actiond.category_actions
                    (version, category, action, ordinal, title, options, text_input_button_title, text_input_placeholder)
                SELECT \(version), c.category, a.action, a.ordinal, a.title, a.options, a.button_title, a.placeholder
                FROM jsonb_to_recordset(\(rows)::jsonb) AS c(category text, actions jsonb),
                     jsonb_to_recordset(c.actions)
                     AS a(action text, ordinal integer, title text, options text[], button_title text, placeholder text)
                """, logger: logger).drain()
            return LoadResult(version: version, unchanged: false)
        }
    }

    /// The current registry as stored, with its version; nil when none was ever loaded.
    package static func current(on client: PostgresClient, logger: Logger) async throws -> (version: Int, registry: CategoryRegistry)? {
        let rows = try await client.query("SELECT version, document FROM actiond.category_document()", logger: logger)
        for try await (version, document) in rows.decode((Int?, String?).self) {
            guard let version, let document else { return nil }
            return (version, try CategoryRegistry.stored(Data(document.utf8)))
        }
        return nil
    }

    /// The current registry, read on `connection`; nil when none was ever loaded.
    package static func currentVersion(on connection: PostgresConnection, logger: Logger) async throws -> CategoryRegistry? {
        let rows = try await connection.query("SELECT document FROM actiond.category_document()", logger: logger)
        for try await document in rows.decode(String?.self) {
            guard let document else { return nil }
            return try CategoryRegistry.stored(Data(document.utf8))
        }
        return nil
    }

    /// Registry version `version`, read on `connection` (a worker's transaction).
    package static func version(_ version: Int, on connection: PostgresConnection, logger: Logger) async throws -> CategoryRegistry? {
        let rows = try await connection.query("SELECT document FROM actiond.category_document(\(version)::integer)", logger: logger)
        for try await document in rows.decode(String?.self) {
            guard let document else { return nil }
            return try CategoryRegistry.stored(Data(document.utf8))
        }
        return nil
    }

    /// A category as the tables store it (PostgreSQL arrays are filled from JSON arrays).
    private struct CategoryRow: Encodable {
        struct ActionRow: Encodable {
            var action: String
            var ordinal: Int
            var title: String
            var options: [String]
            var button_title: String?
            var placeholder: String?
        }

        var category: String
        var options: [String]
        var handler: String?
        var settings: [String: Int]
        var required_payload_keys: [String]
        var actions: [ActionRow]

        init(_ category: NotificationCategory, requiredPayloadKeys: [String]) {
            self.category = category.identifier
            self.options = category.options.map(\.rawValue)
            self.handler = category.handler
            self.settings = category.settings
            self.required_payload_keys = requiredPayloadKeys
            self.actions = category.actions.enumerated().map { index, action in
                ActionRow(action: action.identifier, ordinal: index + 1, title: action.title,
                          options: action.options.map(\.rawValue),
                          button_title: action.textInput?.buttonTitle, placeholder: action.textInput?.placeholder)
            }
        }
    }
}

import ActiondDomain
import Logging
import PostgresNIO

/// The input types the build's handlers declare (`CategoryHandler.sharedInputs`), registered
/// in `actiond.input_types` by `actiond migrate` so that submit accepts them (migration 020).
/// A type is added or its handler and field brought up to date, never removed: a build
/// without it leaves its producers' submits accepted (its events then wait for a worker that
/// has its handler, or are dead-lettered naming the type by one that does not).
enum InputTypeStore {
    /// Registers `handlers`' input types; returns how many rows changed.
    static func register(_ handlers: CategoryHandlers, on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let declared = handlers.inputTypes
        guard !declared.isEmpty else { return 0 }
        // The further keys as one JSON array per type (an array of arrays cannot be ragged).
        let required = declared.map { "[" + $0.requiredKeys.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
        let rows = try await connection.query("""
            WITH declared AS (
                SELECT d.type, d.handler, d.id_field,
                       array(SELECT jsonb_array_elements_text(d.required::jsonb)) AS required_keys
                FROM unnest(\(declared.map(\.type.rawValue))::text[], \(declared.map(\.handler))::text[], \(declared.map(\.idField))::text[],
                            \(required)::text[]) AS d(type, handler, id_field, required)
            )
            INSERT INTO actiond.input_types (type, handler, id_field, required_keys)
            SELECT type, handler, id_field, required_keys FROM declared
            ON CONFLICT (type) DO UPDATE SET handler = excluded.handler, id_field = excluded.id_field,
                                             required_keys = excluded.required_keys, registered_at = now()
            WHERE (actiond.input_types.handler, actiond.input_types.id_field, actiond.input_types.required_keys)
                  IS DISTINCT FROM (excluded.handler, excluded.id_field, excluded.required_keys)
            RETURNING type
            """, logger: logger).collect()
        return rows.count
    }
}

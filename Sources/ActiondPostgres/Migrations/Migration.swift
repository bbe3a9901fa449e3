import Foundation

/// One numbered table migration (`Schema/migrations/NNN_name.sql`), embedded into the binary
/// at build time. Applied once; its text must never change afterwards.
package struct Migration: Sendable, Hashable {
    /// The number before the first underscore: migrations apply in this order, each once.
    package var version: Int
    /// The file name, e.g. `001_baseline.sql`.
    package var name: String
    package var sql: String

    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// The migrations this build ships, in order.
    package static let all: [Migration] = EmbeddedResources.schemaFiles.compactMap { file in
        guard file.name.hasPrefix("migrations/") else { return nil }
        let name = String(file.name.dropFirst("migrations/".count))
        // File names are checked by a test: three digits, an underscore, a name.
        return Migration(version: Int(name.prefix { $0.isNumber }) ?? 0, name: name, sql: file.sql)
    }.sorted { $0.version < $1.version }

    /// Statements in file order, for PostgresNIO's one-statement-per-query protocol.
    package var statements: [String] { SQLStatementSplitter.split(sql) }

    /// `Schema/roles/roles.sql`: the roles and the schema's owner, run first by every migrate.
    package static let roles = SQLStatementSplitter.split(
        EmbeddedResources.schemaFiles.first { $0.name == "roles/roles.sql" }?.sql ?? "")

    /// `Schema/roles/advisory_locks.sql`: the advisory lock functions fenced for actiond_owner
    /// in this database, run after the roles by every migrate (changes nothing unless the
    /// connecting role is a superuser).
    package static let advisoryLocks = SQLStatementSplitter.split(advisoryLocksFile)

    /// The file's text, comments included: what migrate prints for a superuser to run when it
    /// could not fence the functions itself.
    package static let advisoryLocksFile = EmbeddedResources.schemaFiles.first { $0.name == "roles/advisory_locks.sql" }?.sql ?? ""
}

/// A function or view (`Schema/functions/NAME.sql`, `Schema/views/NAME.sql`), a function's
/// Citus variant (`Schema/citus/functions/NAME.sql`), or the grants (`Schema/grants/grants.sql`):
/// the one current definition of the object, re-applied by `actiond migrate` whenever any of
/// these files changes.
///
/// One program per function: a function that must be written differently on a Citus cluster
/// (statements that route to one shard group, INSERT … VALUES instead of INSERT … SELECT) has
/// a second file of the same name under `citus/functions/`, which a distributed database
/// installs instead of the one-server file (`installed(distributed:)`). No function branches
/// on Citus at run time (a test checks the one-server files).
package struct SchemaObject: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        // In the order they are created: views call functions, grants name all of them.
        // (No triggers since 004_distributable_keys.sql: Citus refuses them on distributed tables.)
        case functions, citusFunctions = "citus/functions", views, grants
    }

    package var kind: Kind
    /// The object's name: its file name without `.sql`.
    package var name: String
    /// What is installed.
    package var sql: String
    /// The file as written, for a Citus variant written as edits (`sql` is what they make).
    package var written: String?

    package init(kind: Kind, name: String, sql: String) {
        self.kind = kind
        self.name = name
        self.sql = sql
    }

    /// `functions/claim.sql`: how it is recorded in `actiond.schema_objects`.
    package var path: String { "\(kind.rawValue)/\(name).sql" }

    /// The objects this build ships: functions, their Citus variants, views, then the
    /// grants, each by name. A variant written as edits (``CitusVariantEdits``) is made here
    /// from its one-server file.
    package static let all: [SchemaObject] = made(from: EmbeddedResources.schemaFiles.compactMap { file -> SchemaObject? in
        for kind in Kind.allCases where file.name.hasPrefix(kind.rawValue + "/") {
            let rest = file.name.dropFirst(kind.rawValue.count + 1)
            guard !rest.contains("/"), rest.hasSuffix(".sql") else { continue }
            return SchemaObject(kind: kind, name: String(rest.dropLast(".sql".count)), sql: file.sql)
        }
        return nil
    }).sorted { ($0.kind.order, $0.name) < ($1.kind.order, $1.name) }

    /// `objects` with each variant written as edits replaced by the function it makes. One
    /// whose edits do not apply becomes a statement that fails with the reason, so that a
    /// distributed database's migrate stops there (a one-server database never runs it).
    package static func made(from objects: [SchemaObject]) -> [SchemaObject] {
        let oneServer = Dictionary(objects.filter { $0.kind == .functions }.map { ($0.name, $0.sql) }, uniquingKeysWith: { first, _ in first })
        return objects.map { object in
            guard object.kind == .citusFunctions, CitusVariantEdits.isEdits(object.sql) else { return object }
            var made = object
            made.written = object.sql
            switch variant(object, of: oneServer[object.name]) {
            case .success(let sql): made.sql = sql
            case .failure(let error):
                let reason = "citus/functions/\(object.name).sql: \(error.message)".replacingOccurrences(of: "'", with: "''")
                made.sql = "do $$ begin raise exception '%', '\(reason)'; end $$;"
            }
            return made
        }
    }

    /// The function a variant written as edits makes, or why it cannot be made.
    package static func variant(_ object: SchemaObject, of oneServer: String?) -> Result<String, CitusVariantEdits.VariantError> {
        guard let oneServer else {
            return .failure(CitusVariantEdits.VariantError(message: "functions/\(object.name).sql does not exist"))
        }
        return CitusVariantEdits.parse(object.sql).flatMap { $0.apply(to: oneServer) }
    }

    /// What a database installs of `objects`: on one server every object but the Citus
    /// variants; on a distributed database (`migrate --citus` filled `shard_ranges`) each
    /// function's Citus variant instead of its one-server file, and the Citus-only functions.
    package static func installed(_ objects: [SchemaObject], distributed: Bool) -> [SchemaObject] {
        guard distributed else { return objects.filter { $0.kind != .citusFunctions } }
        let variants = Set(objects.filter { $0.kind == .citusFunctions }.map(\.name))
        return objects.filter { $0.kind != .functions || !variants.contains($0.name) }
    }

    package var statements: [String] { SQLStatementSplitter.split(sql) }
}

extension SchemaObject.Kind {
    var order: Int { Self.allCases.firstIndex(of: self)! }
}

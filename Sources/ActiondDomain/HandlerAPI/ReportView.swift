/// A handler's report view: one row per state (its id and user first), with typed columns
/// read from the figures `CategoryHandler.report(_:)` stores beside each state, and
/// optionally from the shared state with the same id. `actiond migrate` installs it as
/// `actiond.<name>`; `actiond report` lists it with `description`.
public struct ReportView: Sendable, Hashable {
    /// `report_` and lowercase letters, digits or `_`.
    public var name: String
    /// What question the view answers, one line.
    public var description: String
    /// The name of the state id's column (`meeting_id`, `order_id`).
    public var idColumn: String
    /// Columns from the state's report figures, after the id and `user_id`.
    public var columns: [ReportColumn]
    /// Columns from the report figures of the shared state with the same id.
    public var sharedColumns: [ReportColumn]

    /// A view `name` answering `description`, with the state id as `idColumn`, then
    /// `user_id`, then `columns` and `sharedColumns`.
    public init(name: String, description: String, idColumn: String, columns: [ReportColumn], sharedColumns: [ReportColumn] = []) {
        self.name = name
        self.description = description
        self.idColumn = idColumn
        self.columns = columns
        self.sharedColumns = sharedColumns
    }
}

/// A typed column of a report view: a field of the stored report figures.
public struct ReportColumn: Sendable, Hashable {
    /// The column's PostgreSQL type; the report field is cast to it.
    public enum ColumnType: String, Sendable, Hashable, CaseIterable {
        /// `text`, `integer`, `bigint`, `boolean`, `numeric`: a string, number or boolean field.
        case text, integer, bigint, boolean, numeric
        /// A `Date` of the report (stored as RFC 3339 text with microseconds).
        case timestamp = "timestamptz"
    }

    /// The column's name: lowercase letters, digits or `_`.
    public var name: String
    /// The report field it reads (the encoded property name).
    public var key: String
    /// The type the field is cast to.
    public var type: ColumnType
    /// The value shown when the field is absent (for text columns), such as a shared state
    /// that does not exist yet.
    public var whenMissing: String?

    /// Column `name` of `type`, reading field `key` (default: `name`).
    public init(_ name: String, _ type: ColumnType, key: String? = nil, whenMissing: String? = nil) {
        self.name = name
        self.key = key ?? name
        self.type = type
        self.whenMissing = whenMissing
    }
}

import PostgresNIO

/// The SQLSTATE codes actiond relies on, by name: PostgreSQL's own, and actiond's refusals
/// (class `AD`, which PostgreSQL leaves free), each raised for one reason only. Match errors
/// with `PSQLError.sqlState`, never with literals.
package struct SQLState: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    package let rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { rawValue = value }

    /// The two-character class (`23` for every integrity constraint violation).
    package var errorClass: Substring { rawValue.prefix(2) }
    package var description: String { rawValue }

    // PostgreSQL's.
    package static let invalidParameterValue: SQLState = "22023"
    package static let numericValueOutOfRange: SQLState = "22003"
    package static let invalidDatetimeFormat: SQLState = "22007"
    package static let invalidTextRepresentation: SQLState = "22P02"
    package static let untranslatableCharacter: SQLState = "22P05"
    package static let integrityConstraintViolation: SQLState = "23000"
    package static let foreignKeyViolation: SQLState = "23503"
    package static let uniqueViolation: SQLState = "23505"
    package static let readOnlySQLTransaction: SQLState = "25006"
    package static let invalidAuthorizationSpecification: SQLState = "28000"
    package static let invalidPassword: SQLState = "28P01"
    package static let invalidCatalogName: SQLState = "3D000"
    package static let invalidSchemaName: SQLState = "3F000"
    package static let serializationFailure: SQLState = "40001"
    package static let deadlockDetected: SQLState = "40P01"
    package static let insufficientPrivilege: SQLState = "42501"
    package static let nameTooLong: SQLState = "42622"
    package static let undefinedFunction: SQLState = "42883"
    package static let undefinedTable: SQLState = "42P01"
    package static let tooManyConnections: SQLState = "53300"
    package static let programLimitExceeded: SQLState = "54000"
    package static let lockNotAvailable: SQLState = "55P03"
    package static let queryCanceled: SQLState = "57014"
    package static let cannotConnectNow: SQLState = "57P03"
    package static let raiseException: SQLState = "P0001"
    package static let internalError: SQLState = "XX000"

    // actiond's own, one reason each. SQL names them (and PostgreSQL's it uses) through
    // actiond.sqlstate(name) (Schema/functions/sqlstate.sql), which a test checks against these.
    /// prune: the partition's ids are being forgotten by no prune (log_prune_forget).
    package static let partitionNotBeingPruned: SQLState = "ADP01"
    /// prune: the partition holds events whose outcome is not final (log_prune_drop).
    package static let partitionHasUnresolvedEvents: SQLState = "ADP02"
    /// prune: the partition still has idempotency keys to forget (log_prune_drop).
    package static let partitionHasIdsToForget: SQLState = "ADP03"
    /// A worker batch made a data key for a user forgotten meanwhile (commit_batch): the
    /// batch runs again and sees the fence.
    package static let keyForForgottenUser: SQLState = "ADK01"
    /// keys rotate --retire-old before every data key has a wrapping under the new KEK.
    package static let rotationIncomplete: SQLState = "ADK02"
    /// A worker batch carried a data key for a user it did not claim (commit_batch).
    package static let keyForUnclaimedUser: SQLState = "ADK03"
    /// keys rotate --retire-old while a worker still holds a KEK being retired.
    package static let kekInUse: SQLState = "ADK04"
    /// A data key wrapped under a retired KEK only (commit_batch, add_key_wrappings).
    package static let kekRetired: SQLState = "ADK05"
}

extension PSQLError {
    /// The server's SQLSTATE; nil for a client-side error (the connection).
    package var sqlState: SQLState? { serverInfo?[.sqlState].map(SQLState.init(rawValue:)) }
}

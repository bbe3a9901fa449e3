import ActiondPostgres
import PostgresNIO

/// actiond's group roles (Schema/roles/roles.sql): every login is granted one.
package enum ActiondRole: String, Sendable, CaseIterable {
    case owner = "actiond_owner", producer = "actiond_producer", worker = "actiond_worker", reader = "actiond_reader"

    /// The job, as a sentence names a login of the role: "a producer login".
    var job: String {
        switch self {
        case .owner: "owner"
        case .producer: "producer"
        case .worker: "worker"
        case .reader: "reader"
        }
    }
}

/// What a command needs of the login it runs as: the role whose grants it uses (the owner, a
/// member of actiond_owner, may run every command) and what it does, for the sentence that
/// refuses a login without it.
package struct CommandAccess: Sendable {
    /// As typed after `actiond`: `rebuild`, `dead-letters retry`.
    package var command: String
    /// What the command does that needs the role: `rewrites the projections`.
    package var action: String
    /// The roles that may run it besides the owner; empty: the owner only.
    package var roles: [ActiondRole]

    package init(_ command: String, _ action: String, roles: [ActiondRole] = []) {
        self.command = command
        self.action = action
        self.roles = roles.filter { $0 != .owner }
    }

    /// The sentence that refuses a login without the role; `executable`: the command line's
    /// name (a team's worker has its own).
    package func refusal(executable: String = "actiond") -> String {
        guard !roles.isEmpty else {
            return "\(executable) \(command) \(action), which only the owner may: run it as the role that migrates (a member of actiond_owner), not as a producer, worker or reader login"
        }
        let others = [ActiondRole.producer, .worker, .reader].filter { !roles.contains($0) }
        return "\(executable) \(command) \(action), which only a \(Self.or(roles.map(\.job))) login may: run it as a login granted "
            + "\(Self.or(roles.map(\.rawValue))) (or as the role that migrates, a member of actiond_owner), not as a \(Self.or(others.map(\.job))) login"
    }

    /// `a`, `a or b`, `a, b or c`.
    private static func or(_ words: [String]) -> String {
        words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}

/// Every command's access, in one table: what each needs of its login (SECURITY.md, "Roles").
extension CommandAccess {
    package static let migrate = CommandAccess("migrate", "creates and changes the schema")
    package static let categoriesLoad = CommandAccess("categories load", "changes the categories")
    package static let categoriesList = CommandAccess("categories list", "reads the categories", roles: [.producer, .worker])
    package static let submit = CommandAccess("submit", "submits events", roles: [.producer])
    package static let work = CommandAccess("work", "claims and decides events", roles: [.worker])
    package static let report = CommandAccess("report", "reads the report views", roles: [.reader])
    package static let rebuild = CommandAccess("rebuild", "rewrites the projections")
    package static let deadLettersRetry = CommandAccess("dead-letters retry", "puts dead events back in their users' queues")
    package static let deadLettersDiscard = CommandAccess("dead-letters discard", "drops events from the dead-letter list")
    package static let pause = CommandAccess("pause", "changes what workers claim")
    package static let resume = CommandAccess("resume", "changes what workers claim")
    package static let prune = CommandAccess("prune", "drops old partitions of the log")
    package static let forget = CommandAccess("forget", "destroys a person's data keys")
    package static let keysRotate = CommandAccess("keys rotate", "rewraps every data key")
    package static let keysReseal = CommandAccess("keys reseal", "rewrites protected text in the log")
}

/// A command refused for the login it runs as: the sentence names the role it needs, then
/// what PostgreSQL (or the check) said, never as a bare 42501.
package struct RoleRefusal: Error, CustomStringConvertible {
    package var access: CommandAccess
    /// The command line's name, as the sentence gives it.
    package var executable = "actiond"
    /// What refused it, in parentheses after the sentence: PostgreSQL's message
    /// (`PostgreSQL: permission denied for function claim`), or what a check found.
    package var cause: String?

    package init(_ access: CommandAccess, cause: String?) {
        self.access = access
        self.cause = cause
    }

    /// The refusal of `access` for `error` when it is PostgreSQL's insufficient_privilege
    /// (42501); nil for any other error.
    package init?(_ access: CommandAccess, refusing error: any Error) {
        guard let error = error as? PSQLError, error.sqlState == .insufficientPrivilege else { return nil }
        self.init(access, cause: error.serverInfo?[.message].map { "PostgreSQL: \($0)" })
    }

    package var description: String {
        access.refusal(executable: executable) + (cause.map { " (\($0))" } ?? "")
    }
}

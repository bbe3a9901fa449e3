import Foundation
import Logging

/// What an operator may do in the console (docs/console.md, "Who may do what").
public enum ConsoleRole: String, Codable, Sendable, CaseIterable {
    /// Every page, no action.
    case viewer
    /// Every page, and retry, discard, pause and resume.
    case `operator`
}

/// The operator a request is made by (someone who runs actiond, not a user who tapped): the
/// signed-in name, the proxy's header, or, on loopback without a users file, the local viewer.
package struct ConsoleOperator: Codable, Sendable, Equatable {
    package var name: String
    package var role: ConsoleRole

    package init(name: String, role: ConsoleRole) {
        self.name = name
        self.role = role
    }

    package var mayAct: Bool { role == .operator }
}

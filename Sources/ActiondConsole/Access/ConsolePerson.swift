import Foundation
import Logging

/// What a person may do in the console (docs/console.md, "Who may do what").
public enum ConsoleRole: String, Codable, Sendable, CaseIterable {
    /// Every page, no action.
    case viewer
    /// Every page, and retry, discard, pause and resume.
    case `operator`
}

/// The person a request is made by: the signed-in name, the proxy's header, or, on loopback
/// without a users file, the local viewer.
package struct ConsolePerson: Codable, Sendable, Equatable {
    package var name: String
    package var role: ConsoleRole

    package init(name: String, role: ConsoleRole) {
        self.name = name
        self.role = role
    }

    package var mayAct: Bool { role == .operator }
}

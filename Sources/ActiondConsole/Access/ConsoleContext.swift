import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// A console request's context: its session (a signed-in person, kept in memory by
/// `SessionMiddleware`) and the person `ConsoleAccessMiddleware` found.
package struct ConsoleContext: SessionRequestContext, RequestContext {
    package typealias Session = ConsolePerson

    package var coreContext: CoreRequestContextStorage
    package let sessions: SessionContext<ConsolePerson>
    /// Who makes this request; set by `ConsoleAccessMiddleware` before any page runs.
    package var person: ConsolePerson?
    /// Why the console is read-only for everyone (no users file), or nil.
    package var readOnlyReason: String?

    package init(source: Source) {
        self.coreContext = .init(source: source)
        self.sessions = .init()
        self.person = nil
        self.readOnlyReason = nil
    }
}

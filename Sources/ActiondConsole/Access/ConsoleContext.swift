import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore

/// A console request's context: its session (a signed-in operator, kept in memory by
/// `SessionMiddleware`) and the operator `ConsoleAccessMiddleware` found.
package struct ConsoleContext: SessionRequestContext, RequestContext {
    package typealias Session = ConsoleOperator

    package var coreContext: CoreRequestContextStorage
    package let sessions: SessionContext<ConsoleOperator>
    /// Who makes this request; set by `ConsoleAccessMiddleware` before any page runs.
    package var consoleOperator: ConsoleOperator?
    /// Why the console is read-only for everyone (no users file), or nil.
    package var readOnlyReason: String?
    /// The address the request came from (the proxy's, behind one), for trusting a proxy's
    /// header and throttling sign-in.
    package let peer: IPAddress?
    /// The port the request reached, for comparing `Origin` with the console's own names.
    package let localPort: Int?

    package init(source: Source) {
        self.coreContext = .init(source: source)
        self.sessions = .init()
        self.consoleOperator = nil
        self.readOnlyReason = nil
        self.peer = source.channel.remoteAddress?.ipAddress.flatMap(IPAddress.init)
        self.localPort = source.channel.localAddress?.port
    }
}

import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore

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
    /// The address the request came from (the proxy's, behind one), for trusting a proxy's
    /// header and throttling sign-in.
    package let peer: IPAddress?
    /// The port the request reached, for comparing `Origin` with the console's own names.
    package let localPort: Int?

    package init(source: Source) {
        self.coreContext = .init(source: source)
        self.sessions = .init()
        self.person = nil
        self.readOnlyReason = nil
        self.peer = source.channel.remoteAddress?.ipAddress.flatMap(IPAddress.init)
        self.localPort = source.channel.localAddress?.port
    }
}

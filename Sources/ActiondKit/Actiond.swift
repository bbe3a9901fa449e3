@_exported import ActiondDomain
import ArgumentParser
import Foundation
import Synchronization

/// actiond as a library: a team's own worker executable, with its handlers beside the
/// built-in ones, and every command that operates actiond. The development tools (`demo`,
/// `bench`, `db`) are not linked: `ActiondDevelopment.main(handlers:)` adds them.
///
/// ```swift
/// import ActiondKit
///
/// @main
/// struct OrderWorker {
///     static func main() async {
///         await Actiond.main(handlers: [OrderReadyHandler()])
///     }
/// }
/// ```
public enum Actiond {
    /// Runs the command line (`migrate`, `categories`, `submit`, `work`, `report`,
    /// `rebuild`, `dead-letters`, `pause`, `resume`, `prune`, `forget`, `keys`) with `handlers`
    /// beside the built-in ones, and exits. Handlers that cannot be used together (two with one
    /// name, a view named twice…) are reported, and the process exits 78.
    public static func main(handlers: [any CategoryHandler] = []) async {
        install(handlers)
        await ActiondCommand.runCommandLine()
    }

    /// Makes `handlers` (and the built-in ones) this process's, or exits 78 saying why.
    package static func install(_ handlers: [any CategoryHandler]) {
        do {
            let set = try CategoryHandlers(handlers)
            Installed.state.withLock { $0 = set }
        } catch {
            FileHandle.standardError.write(Data("actiond: \(error)\n".utf8))
            exit(78)  // EX_CONFIG
        }
    }
}

/// The handlers of this process's build, set by `Actiond.main` before the command line is
/// parsed (ArgumentParser makes the commands; they read them here).
package enum Installed {
    static let state = Mutex<CategoryHandlers>(.builtIn)
    package static var handlers: CategoryHandlers { state.withLock { $0 } }
}

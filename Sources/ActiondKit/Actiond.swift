@_exported import ActiondDomain
import ArgumentParser
import Foundation
import Synchronization

/// actiond as a library: a team's own worker executable, with its handlers beside the
/// built-in ones, and every command of the `actiond` binary.
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
    /// `rebuild`, `dead-letters`, `prune`, `demo`, `bench`, `db`) with `handlers` beside the built-in
    /// ones, and exits. Handlers that cannot be used together (two with one name, a view
    /// named twice…) are reported, and the process exits 78.
    public static func main(handlers: [any CategoryHandler] = []) async {
        do {
            let set = try CategoryHandlers(handlers)
            Installed.state.withLock { $0 = set }
        } catch {
            FileHandle.standardError.write(Data("actiond: \(error)\n".utf8))
            exit(78)  // EX_CONFIG
        }
        await ActiondCommand.runCommandLine()
    }
}

/// The handlers of this process's build, set by `Actiond.main` before the command line is
/// parsed (ArgumentParser makes the commands; they read them here).
enum Installed {
    static let state = Mutex<CategoryHandlers>(.builtIn)
    static var handlers: CategoryHandlers { state.withLock { $0 } }
}

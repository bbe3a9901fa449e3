@_exported import ActiondDomain
import ActiondBuiltInHandlers
import ArgumentParser
import Foundation
import Synchronization

/// actiond as a library: a team's own worker executable, with its handlers beside the
/// built-in ones, and every command that operates actiond. The development tools (`demo`,
/// `bench`, `db`) are not linked: `ActiondDevelopment.main(handlers:)` adds them.
///
/// ```swift
/// import ActiondKit
/// import OrderWorker   // the library target that holds the handler
///
/// await Actiond.main(handlers: [OrderReadyHandler()])
/// ```
public enum Actiond {
    /// Runs the command line (`migrate`, `categories`, `submit`, `work`, `report`,
    /// `rebuild`, `dead-letters`, `pause`, `resume`, `prune`, `forget`, `keys`) with `handlers`
    /// beside the built-in ones, and exits. Handlers that cannot be used together (two with one
    /// name, a view named twice…) are reported, and the process exits 78.
    ///
    /// - Parameter commandName: the name the help (`USAGE: order-worker …`) and the hints the
    ///   commands print (`… until order-worker forget USER --allow-new-key`) give the
    ///   executable; nil: the name it was started by (the last path component of its first
    ///   argument), so a binary copied to `/usr/local/bin/actiond` says `actiond`.
    public static func main(handlers: [any CategoryHandler] = [], commandName: String? = nil) async {
        install(handlers, commandName: commandName)
        await ActiondCommand.runCommandLine()
    }

    /// Makes `handlers` (and the built-in ones) this process's, and `commandName` (nil: the
    /// executable's own, `startedAs`) the name its help and hints give, or exits 78 saying why.
    package static func install(_ handlers: [any CategoryHandler], commandName: String? = nil) {
        let name = commandName.flatMap { $0.isEmpty ? nil : $0 } ?? startedAs(CommandLine.arguments.first)
        Installed.commandNameState.withLock { $0 = name }
        ExecutableName.set(name)
        do {
            let set = try CategoryHandlers(handlers)
            Installed.state.withLock { $0 = set }
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(78)  // EX_CONFIG
        }
    }

    /// The operating commands (`migrate`, `categories`, `submit`, `work`, `report`, `rebuild`,
    /// `dead-letters`, `pause`, `resume`, `prune`, `forget`, `keys`, `console`), for a team's own
    /// command line beside its own subcommands. Run that command line with
    /// ``run(_:handlers:commandName:)``, so that the commands know the handlers.
    ///
    /// ```swift
    /// @main
    /// struct ParcelWorker: AsyncParsableCommand {
    ///     static let configuration = CommandConfiguration(
    ///         commandName: "parcel-worker",
    ///         subcommands: Actiond.operatingCommands + [ImportCouriers.self])
    ///
    ///     static func main() async {
    ///         await Actiond.run(ParcelWorker.self, handlers: [ParcelDeliveryHandler()])
    ///     }
    /// }
    /// ```
    public static var operatingCommands: [any ParsableCommand.Type] { ActiondCommand.operatingCommands }

    /// Runs `root`, a team's own command line that includes ``operatingCommands``, with
    /// `handlers` beside the built-in ones, and exits: as ``main(handlers:commandName:)`` does
    /// for actiond's own (the same errors, exit codes and log format), under `commandName`
    /// (nil: the name the executable was started by).
    public static func run<Root: AsyncParsableCommand>(_ root: Root.Type, handlers: [any CategoryHandler] = [],
                                                       commandName: String? = nil) async {
        install(handlers, commandName: commandName)
        await Root.runCommandLine()
    }

    /// The name an executable started as `argument` (its first argument) goes by: the last
    /// path component (`.build/debug/order-ready-worker` → `order-ready-worker`); `actiond`
    /// when there is none.
    package static func startedAs(_ argument: String?) -> String {
        argument?.split(separator: "/").last.map(String.init) ?? "actiond"
    }
}

/// The handlers of this process's build, set by `Actiond.main` before the command line is
/// parsed (ArgumentParser makes the commands; they read them here), and the executable's name.
package enum Installed {
    static let state = Mutex<CategoryHandlers>(.builtIn)
    package static var handlers: CategoryHandlers { state.withLock { $0 } }

    static let commandNameState = Mutex<String>("actiond")
    /// The executable's name, as its help and the hints its commands print give it (`actiond`,
    /// or a team's worker's own: `order-ready-worker`).
    package static var commandName: String { commandNameState.withLock { $0 } }
}

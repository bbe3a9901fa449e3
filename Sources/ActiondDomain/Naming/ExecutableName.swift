import Synchronization

/// The name of the executable this process runs as (`actiond`, or a team's worker:
/// `order-ready-worker`), for the hints any layer's messages give ("run order-ready-worker
/// migrate"). Set once at start by `Actiond.main` and `Actiond.run`; `actiond` until then.
package enum ExecutableName {
    private static let state = Mutex<String>("actiond")

    /// The executable's name.
    package static var current: String { state.withLock { $0 } }

    /// Sets the name (an empty one is ignored).
    package static func set(_ name: String) {
        guard !name.isEmpty else { return }
        state.withLock { $0 = name }
    }
}

import ActiondTooling
import Foundation

/// The random waits a test uses to stop a process at an arbitrary moment (a SIGKILL mid-batch),
/// reproducible: the seed is `ACTIOND_TEST_SEED` when set, else drawn, and printed either way,
/// so a failing run's delays can be replayed.
package struct RandomDelays: Sendable {
    /// The seed these delays come from.
    package let seed: UInt64
    private var generator: SplitMix64

    /// Delays for `test` (named in the printed line).
    package init(_ test: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        seed = environment["ACTIOND_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: .min ... .max)
        generator = SplitMix64(seed: seed)
        print("\(test): random delays from seed \(seed) (ACTIOND_TEST_SEED=\(seed) replays them)")
    }

    /// The next delay, a whole number of milliseconds in `range`.
    package mutating func milliseconds(in range: ClosedRange<Int>) -> Duration {
        .milliseconds(Int.random(in: range, using: &generator))
    }
}

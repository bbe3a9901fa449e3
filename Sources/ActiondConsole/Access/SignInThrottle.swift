import Foundation
import Synchronization

/// Failed sign-ins per name and per address: after `limit` within `window` (5 a minute), a
/// name or an address is refused (429, `Retry-After`) until the oldest of them is a window
/// old, without checking any password. An attempt counts from its start until it succeeds,
/// so guesses sent all at once are counted before their hashes are checked.
///
/// Written by hand: hummingbird-auth has no rate limiter, and this needs two keys per attempt
/// and the reservation above. Kept in memory (a restart forgets it); at most `capacity` keys.
package final class SignInThrottle: Sendable {
    package struct Limits: Sendable {
        package var limit: Int = 5
        package var window: Duration = .seconds(60)
        package var capacity: Int = 100_000
        package init() {}
    }

    enum Key: Hashable {
        case name(String)
        case address(IPAddress)
    }

    /// One attempt under way: `finish` it with whether it succeeded.
    package struct Attempt: Sendable {
        let keys: [Key]
        let at: ContinuousClock.Instant
    }

    private let limits: Limits
    private let failures = Mutex<[Key: [ContinuousClock.Instant]]>([:])

    package init(limits: Limits = Limits()) { self.limits = limits }

    /// Starts an attempt for `name` from `address`, or says how long to wait (whole seconds,
    /// at least 1) when either has failed `limit` times within the window.
    package func begin(name: String, address: IPAddress?) -> Result<Attempt, RetryAfter> {
        let now = ContinuousClock.now
        let keys = [Key.name(String(name.prefix(128)))] + (address.map { [Key.address($0)] } ?? [])
        return failures.withLock { failures in
            if failures.count > limits.capacity { Self.sweep(&failures, now: now, window: limits.window) }
            var wait: Duration = .zero
            for key in keys {
                let recent = (failures[key] ?? []).filter { now - $0 < limits.window }
                failures[key] = recent.isEmpty ? nil : recent
                if recent.count >= limits.limit, let oldest = recent.min() { wait = max(wait, oldest + limits.window - now) }
            }
            if wait > .zero { return .failure(RetryAfter(seconds: max(1, Int((Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18).rounded(.up))))) }
            for key in keys { failures[key, default: []].append(now) }
            return .success(Attempt(keys: keys, at: now))
        }
    }

    /// Ends an attempt: a success takes it off the count (a failure stays counted).
    package func finish(_ attempt: Attempt, succeeded: Bool) {
        guard succeeded else { return }
        failures.withLock { failures in
            for key in attempt.keys {
                guard var times = failures[key], let index = times.firstIndex(of: attempt.at) else { continue }
                times.remove(at: index)
                failures[key] = times.isEmpty ? nil : times
            }
        }
    }

    /// How long a refused attempt is told to wait.
    package struct RetryAfter: Error, Equatable { package let seconds: Int }

    private static func sweep(_ failures: inout [Key: [ContinuousClock.Instant]], now: ContinuousClock.Instant, window: Duration) {
        for (key, times) in failures {
            let recent = times.filter { now - $0 < window }
            failures[key] = recent.isEmpty ? nil : recent
        }
    }
}

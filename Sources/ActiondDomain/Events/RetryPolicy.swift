/// When a failed event runs again: exponential backoff with jitter, up to a number of attempts.
package struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; after the last failure the event is dead.
    package var maxAttempts: Int
    /// Delay after the first failure; doubles after each further failure.
    package var baseDelay: Duration
    /// The delay never exceeds this.
    package var maxDelay: Duration
    /// Fraction of the delay drawn at random (0: none, 1: anywhere from 0 to the full delay),
    /// so that many failing users do not retry in step.
    package var jitter: Double

    package init(maxAttempts: Int = 10, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(300), jitter: Double = 0.5) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.jitter = min(max(jitter, 0), 1)
    }

    /// What to do after attempt number `attempt` (1-based) failed.
    package enum Decision: Sendable, Hashable {
        case retry(after: Duration)
        case dead
    }

    package func afterFailure(attempt: Int, random: Double = Double.random(in: 0..<1)) -> Decision {
        guard attempt < maxAttempts else { return .dead }
        let exponent = min(attempt - 1, 40)
        let full = min(baseDelay * Double(1 << min(exponent, 52)), maxDelay)
        let delay = full * (1 - jitter * random)
        return .retry(after: delay)
    }
}

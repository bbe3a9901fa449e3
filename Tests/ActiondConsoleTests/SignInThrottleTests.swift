@testable import ActiondConsole
import Foundation
import Testing

@Suite("Sign-in throttling")
struct SignInThrottleTests {
    @Test func theSixthFailureOfANameWithinTheWindowIsRefusedWithAWait() throws {
        let throttle = SignInThrottle()
        for index in 0..<5 {
            let attempt = try throttle.begin(name: "ana", address: IPAddress("10.0.0.\(index)")).get()
            throttle.finish(attempt, succeeded: false)
        }
        guard case .failure(let wait) = throttle.begin(name: "ana", address: IPAddress("10.0.0.9")) else {
            Issue.record("a sixth attempt for ana went on"); return
        }
        #expect((55...60).contains(wait.seconds))
        #expect((try? throttle.begin(name: "bo", address: IPAddress("10.0.0.9")).get()) != nil, "another name from another address goes on")
    }

    @Test func theSixthFailureFromAnAddressIsRefusedWhateverTheName() throws {
        let throttle = SignInThrottle()
        let address = IPAddress("192.0.2.7")
        for index in 0..<5 { throttle.finish(try throttle.begin(name: "guess\(index)", address: address).get(), succeeded: false) }
        #expect(throws: SignInThrottle.RetryAfter.self) { try throttle.begin(name: "someone-else", address: address).get() }
    }

    @Test func attemptsUnderWayCountAndASuccessIsTakenOffTheCount() throws {
        let throttle = SignInThrottle()
        // Five at once, none finished yet: the sixth waits.
        let pending = try (0..<5).map { _ in try throttle.begin(name: "ana", address: nil).get() }
        #expect(throws: SignInThrottle.RetryAfter.self) { try throttle.begin(name: "ana", address: nil).get() }
        for attempt in pending { throttle.finish(attempt, succeeded: true) }
        #expect((try? throttle.begin(name: "ana", address: nil).get()) != nil)
    }

    @Test func failuresOlderThanTheWindowNoLongerCount() async throws {
        var limits = SignInThrottle.Limits()
        limits.window = .milliseconds(300)
        let throttle = SignInThrottle(limits: limits)
        for _ in 0..<5 { throttle.finish(try throttle.begin(name: "ana", address: nil).get(), succeeded: false) }
        #expect(throws: SignInThrottle.RetryAfter.self) { try throttle.begin(name: "ana", address: nil).get() }
        try await Task.sleep(for: .milliseconds(400))
        #expect((try? throttle.begin(name: "ana", address: nil).get()) != nil)
    }
}

/// Whether `condition` holds within `seconds`, asked every `every` until then and once more at
/// the deadline: for tests that wait on another process or task (a worker deciding, a listener
/// connecting). The caller records what it waited for when this returns false.
package func eventually(_ seconds: Double = 30, every: Duration = .milliseconds(20),
                        _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: every)
    }
    return try await condition()
}

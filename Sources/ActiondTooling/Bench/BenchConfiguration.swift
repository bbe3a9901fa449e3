/// Sizes and settings of one `actiond bench` run.
package struct BenchConfiguration: Sendable {
    /// Events submitted through the bulk path (`actiond submit`'s).
    package var submitEvents = 200_000
    /// Statements the bulk path runs at once (`actiond submit --connections`, its default).
    package var submitConnections = 2
    /// Events submitted with one `actiond.submit()` call each, from `singleConnections`.
    package var singleEvents = 20_000
    package var singleConnections = 8
    /// The backlog the workers drain, and its users.
    package var endToEndEvents = 1_000_000
    package var users = 10_000
    /// Offered load and duration of the latency phase.
    package var latencyRate = 1_000
    package var latencySeconds = 30
    /// The small-batch breakdown: events offered (at `latencyRate`) in groups of each of
    /// these sizes, each group one producer transaction, for `breakdownSeconds` each.
    package var breakdownGroups = [1, 4, 16, 64]
    package var breakdownSeconds = 10
    /// `--worker-processes`: the numbers of `actiond work` processes to drain a backlog of
    /// `scalingEvents` with, one after the other (none: the phase is skipped).
    package var workerProcesses: [Int] = []
    package var scalingEvents = 200_000
    /// Durable commits (fsync and synchronous_commit on); off only when asked, and labelled.
    package var durable = true

    package init() {}

    /// A run of a few seconds: the CI smoke test.
    package static var quick: BenchConfiguration {
        var configuration = BenchConfiguration()
        configuration.submitEvents = 5_000
        configuration.singleEvents = 800
        configuration.endToEndEvents = 10_000
        configuration.users = 300
        configuration.latencyRate = 200
        configuration.latencySeconds = 2
        configuration.breakdownSeconds = 1
        return configuration
    }
}

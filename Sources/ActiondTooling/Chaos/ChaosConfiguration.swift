/// Sizes, rates and fault schedule of one chaos soak (`actiond bench --chaos`).
package struct ChaosConfiguration: Sendable {
    /// How long producers offer load and faults happen; settling and checks come after.
    package var duration: Duration = .seconds(30 * 60)
    /// Events offered per second, in total, by all producer connections.
    package var rate = 2_000
    /// Producer connections; each user's events go through one of them, in order.
    package var connections = 8
    /// The users the producers speak for (each round of the workload gives each of them more events).
    package var users = 2_000
    /// `actiond work` processes running at once.
    package var workers = 2
    /// One worker is SIGKILLed (and restarted at once) this often; nil: never.
    package var killEvery: Duration? = .seconds(60)
    /// PostgreSQL is crashed (immediate stop) and restarted this often; nil: never (always
    /// nil on a database the run did not start itself).
    package var crashEvery: Duration? = .seconds(10 * 60)
    /// One event in this many is submitted a second time once acknowledged (it must come back
    /// as a duplicate of itself).
    package var resubmitEvery = 100
    /// How long the workers get to decide everything once the load stops.
    package var settleLimit: Duration = .seconds(10 * 60)
    /// Latency after a fault is read over this window.
    package var faultWindow: Duration = .seconds(30)
    /// The p99 a fault's recovery is measured against, in milliseconds.
    package var recoveryP99Milliseconds = 10.0
    /// `synchronous_commit = off` for the run (labelled NOT DURABLE): what a crash costs then.
    package var synchronousCommitOff = false

    package init() {}
}

import ActiondDomain

/// How `actiond work` runs. Every field has a default.
public struct WorkerConfiguration: Sendable, Hashable {
    /// Batches processed at once, each on its own connection.
    public var concurrency: Int = 4
    /// Events per transaction (at most).
    public var batchSize: Int = 500
    /// Users claimed per transaction (at most); their events share `batchSize`. A fifth of
    /// the batch (at most 100), so that one worker does not lock every user of a small
    /// backlog while the others find nothing to claim.
    public var usersPerBatch: Int = 100
    /// How often an idle worker looks for work when no notification arrives.
    public var pollInterval: Duration = .seconds(5)
    /// Exit when no event waits for an outcome, instead of waiting for more.
    public var drain: Bool = false
    /// Retries of failing handlers.
    public var retry: RetryPolicy = RetryPolicy()
    /// How often queue depth and oldest age are sampled for metrics.
    public var sampleInterval: Duration = .seconds(10)
    /// How often held responses past their window are released.
    public var holdSweepInterval: Duration = .seconds(1)

    public init() {}

    public init(concurrency: Int = 4, batchSize: Int = 500, pollInterval: Duration = .seconds(5),
                drain: Bool = false, retry: RetryPolicy = RetryPolicy()) {
        self.concurrency = max(1, concurrency)
        self.batchSize = max(1, batchSize)
        self.usersPerBatch = max(1, min(100, batchSize / 5))
        self.pollInterval = pollInterval
        self.drain = drain
        self.retry = retry
    }
}

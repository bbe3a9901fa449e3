import ActiondDomain

/// How `actiond work` runs. Every field has a default.
package struct WorkerConfiguration: Sendable, Hashable {
    /// Batches processed at once, each on its own connection.
    package var concurrency: Int = 4
    /// Events per transaction (at most).
    package var batchSize: Int = 500
    /// Users claimed per transaction (at most); their events share `batchSize`. A fifth of
    /// the batch (at most 100), so that one worker does not lock every user of a small
    /// backlog while the others find nothing to claim.
    package var usersPerBatch: Int = 100
    /// How often an idle worker looks for work when no notification arrives.
    package var pollInterval: Duration = .seconds(5)
    /// How long a notification that arrives while a loop is in a batch is left to that loop's
    /// next claim before it wakes an idle loop (WorkerSignals.notified; at once when the
    /// latest batch began longer ago than this): the most it adds to an event's latency, when
    /// a batch runs long. At a steady trickle, what arrives during a batch then goes into the
    /// next one together: in the benchmark's latency phase (1,000 one-event submits a second)
    /// 20 ms took the worker's CPU per event from about 650 to 400 µs and the server's from
    /// about 1,680 to 1,160 µs, against waking a loop per notification; 5 ms took about 15 %
    /// off each.
    package var busyWakeDelay: Duration = .milliseconds(20)
    /// Exit when no event waits for an outcome, instead of waiting for more.
    package var drain: Bool = false
    /// Retries of failing handlers.
    package var retry: RetryPolicy = RetryPolicy()
    /// How often queue depth and oldest age are sampled for metrics.
    package var sampleInterval: Duration = .seconds(10)
    /// How often held responses past their window are released.
    package var holdSweepInterval: Duration = .seconds(1)
    /// How often per-minute report counters older than two days are dropped.
    package var pruneInterval: Duration = .seconds(300)
    /// Decoded projection rows the loops keep between batches (`StateCache`; 0: none). About
    /// a kilobyte each.
    package var stateCacheCapacity: Int = 4096

    package init() {}

    package init(concurrency: Int = 4, batchSize: Int = 500, pollInterval: Duration = .seconds(5),
                drain: Bool = false, retry: RetryPolicy = RetryPolicy()) {
        self.concurrency = max(1, concurrency)
        self.batchSize = max(1, batchSize)
        self.usersPerBatch = max(1, min(100, batchSize / 5))
        self.pollInterval = pollInterval
        self.drain = drain
        self.retry = retry
    }
}

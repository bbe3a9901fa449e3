import ActiondPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The chaos soak's producers: a steady offered load of mixed events, each in a transaction of
/// its own (`actiond.submit`), from several connections, each user's events through one
/// connection in order. A submit whose connection broke is sent again until it is answered;
/// every answer goes to the ledger.
struct ChaosProducers: Sendable {
    /// What the producers did, beyond the ledger.
    struct Summary: Codable, Sendable {
        /// Events acknowledged (accepted, or a retried submit that came back as a duplicate of itself).
        var acknowledged = 0
        /// Acknowledged after a broken connection: the retry was accepted (the first attempt had
        /// not committed) or came back as a duplicate of itself (it had).
        var retried_accepted = 0
        var retried_came_back_as_itself = 0
        /// Deliberate resubmits of acknowledged events, and those that did not come back as a
        /// duplicate at their first position.
        var resubmits = 0
        var resubmits_wrong = 0
        /// Submits the database refused (the workload is valid: each is a failure), and the first message.
        var refused = 0
        var first_refusal: String?
        /// Submits given up after the settle limit without an answer.
        var unanswered = 0
        /// An acknowledged submit answered `duplicate` although no earlier attempt could have committed.
        var unexpected_duplicates = 0
        /// The longest a producer waited for one answer, retries included (seconds).
        var longest_answer_seconds = 0.0
        /// The furthest a producer fell behind its schedule (seconds): near 0 when the machine
        /// keeps up with the offered rate.
        var most_behind_seconds = 0.0
        /// Attempts abandoned after 30 s without an answer (and sent again), by where they
        /// were stuck: waiting for a connection from the pool, or in BEGIN, submit or COMMIT.
        var abandoned_attempts = 0
        var abandoned_at: [String: Int] = [:]

        mutating func add(_ other: Summary) {
            acknowledged += other.acknowledged
            retried_accepted += other.retried_accepted
            retried_came_back_as_itself += other.retried_came_back_as_itself
            resubmits += other.resubmits
            resubmits_wrong += other.resubmits_wrong
            refused += other.refused
            first_refusal = first_refusal ?? other.first_refusal
            unanswered += other.unanswered
            unexpected_duplicates += other.unexpected_duplicates
            longest_answer_seconds = max(longest_answer_seconds, other.longest_answer_seconds)
            abandoned_attempts += other.abandoned_attempts
            most_behind_seconds = max(most_behind_seconds, other.most_behind_seconds)
            abandoned_at.merge(other.abandoned_at, uniquingKeysWith: +)
        }
    }

    let client: PostgresClient
    let configuration: ChaosConfiguration
    let ledger: ChaosLedger.Writer
    let logger: Logger

    /// Offers load from `start` until `start + duration`, then unlocks every device left
    /// locked (so that each stash can be integrated) and returns once every submit is answered
    /// or given up at `giveUp`.
    func run(start: ContinuousClock.Instant, giveUp: ContinuousClock.Instant) async throws -> Summary {
        let source = ChaosWorkloadSource(users: configuration.users, connections: configuration.connections)
        return try await withThrowingTaskGroup(of: Summary.self) { group in
            for connection in 0..<configuration.connections {
                group.addTask { try await produce(connection: connection, source: source, start: start, giveUp: giveUp) }
            }
            var total = Summary()
            for try await summary in group { total.add(summary) }
            return total
        }
    }

    private func produce(connection: Int, source: ChaosWorkloadSource, start: ContinuousClock.Instant,
                         giveUp: ContinuousClock.Instant) async throws -> Summary {
        let clock = ContinuousClock()
        let end = start.advanced(by: configuration.duration)
        let rate = configuration.rate
        var summary = Summary()
        var locked: Set<String> = []
        var recent: [(event: ChaosWorkloadSource.Event, position: Int64)] = []
        var round = 0
        offering: while true {
            for event in await source.part(round: round, connection: connection) {
                let due = start.advanced(by: .microseconds(Int64(event.index) * 1_000_000 / Int64(rate)))
                // The load stops at `end`, on schedule or behind it.
                if due >= end || clock.now >= end { break offering }
                try await Task.sleep(until: due, clock: clock)
                summary.most_behind_seconds = max(summary.most_behind_seconds, Benchmark.seconds(due.duration(to: clock.now)))
                let entry = try await submit(event, giveUp: giveUp, summary: &summary)
                guard entry.position >= 0 else { continue }
                if event.type == "protected_data.unavailable" { locked.insert(event.user) }
                if event.type == "protected_data.available" { locked.remove(event.user) }
                recent.append((event, entry.position))
                if recent.count > 64 { recent.removeFirst(32) }
                if event.index % configuration.resubmitEvery == 0, let earlier = recent.randomElement() {
                    let again = try await submit(earlier.event, resubmit: true, giveUp: giveUp, summary: &summary)
                    summary.resubmits += 1
                    if again.answer != "unanswered" && (again.answer != "duplicate" || again.position != earlier.position) {
                        summary.resubmits_wrong += 1
                    }
                }
            }
            round += 1
            // A connection none of the users hash to has nothing to offer.
            if clock.now >= end { break offering }
        }
        // Devices unlock in the end: every stash left can be integrated.
        for user in locked.sorted() {
            let event = ChaosWorkloadSource.Event(unlocking: user)
            _ = try await submit(event, giveUp: giveUp, summary: &summary)
        }
        return summary
    }

    /// Submits `event` until it is answered, or until `giveUp`; the answer goes to the ledger
    /// (`resubmit`: a deliberate second submit of an acknowledged event). Position -1: refused
    /// or given up.
    private func submit(_ event: ChaosWorkloadSource.Event, resubmit: Bool = false, giveUp: ContinuousClock.Instant,
                        summary: inout Summary) async throws -> ChaosLedger.Entry {
        let clock = ContinuousClock()
        let asked = clock.now
        var attempts = 0
        var inDoubt = false
        while true {
            attempts += 1
            var entry = ChaosLedger.Entry(user: event.user, id: event.id, position: -1, answer: "", attempts: attempts, inDoubt: inDoubt,
                                          resubmit: resubmit)
            switch await attempt(event.line, summary: &summary) {
            case .answered(let answer, let position):
                (entry.answer, entry.position) = (answer, position)
                if !resubmit {
                    summary.acknowledged += 1
                    if answer == "duplicate" && !inDoubt { summary.unexpected_duplicates += 1 }
                    if attempts > 1 {
                        if answer == "duplicate" { summary.retried_came_back_as_itself += 1 } else { summary.retried_accepted += 1 }
                    }
                    summary.longest_answer_seconds = max(summary.longest_answer_seconds, Benchmark.seconds(asked.duration(to: clock.now)))
                }
            case .refused(let message):
                entry.answer = "refused"
                if !resubmit { summary.refused += 1 }
                summary.first_refusal = summary.first_refusal ?? "\(resubmit ? "resubmit of " : "")\(event.user)/\(event.id): \(message)"
            case .broken(let mayHaveCommitted):
                inDoubt = inDoubt || mayHaveCommitted
                guard clock.now >= giveUp else {
                    try await Task.sleep(for: .milliseconds(min(1_000, 25 << min(attempts, 6))))
                    continue
                }
                entry.answer = "unanswered"
                if !resubmit { summary.unanswered += 1 }
            }
            try await ledger.append(entry)
            return entry
        }
    }

    enum Attempt {
        case answered(String, Int64)
        case refused(String)
        /// No answer: the connection broke, the server was going down, or no answer came within
        /// the attempt's limit. `mayHaveCommitted` when the COMMIT was sent and no error came back.
        case broken(mayHaveCommitted: Bool)
    }

    /// Submits `line` in a transaction of its own, ended by COMMIT: the answer counts only once
    /// COMMIT completes (PostgresNIO returns a statement's rows before an implicit transaction
    /// commits). An attempt with no answer after 30 s is abandoned as broken and counted.
    private func attempt(_ line: String, summary: inout Summary) async -> Attempt {
        let stage = Stage()
        if let attempt = await Self.within(.seconds(30), { await attemptOnce(line, stage: stage) }) { return attempt }
        summary.abandoned_attempts += 1
        summary.abandoned_at[stage.name, default: 0] += 1
        // It goes on by itself and may still commit: in doubt, wherever it was stuck.
        return .broken(mayHaveCommitted: true)
    }

    /// Where an attempt is: waiting for a connection, or in BEGIN, submit or COMMIT.
    final class Stage: Sendable {
        private let current = Mutex("connection")
        var name: String { current.withLock { $0 } }
        func enter(_ name: String) { current.withLock { $0 = name } }
    }

    private func attemptOnce(_ line: String, stage: Stage) async -> Attempt {
        do {
            return try await client.withConnection { connection in
                stage.enter("BEGIN")
                let text = try await connection.transaction(logger: logger) { connection in
                    stage.enter("submit")
                    let text = try await connection.query("SELECT actiond.submit(\(line)::jsonb)::text", logger: logger).collect().first?.decode(String.self)
                    stage.enter("COMMIT")
                    return text
                }
                guard let text, let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                      let status = object["status"] as? String, let position = (object["position"] as? NSNumber)?.int64Value else {
                    return .refused("submit answered something else than status and position")
                }
                return .answered(status, position)
            }
        } catch let error as PSQLError {
            // A server error ends the transaction: nothing committed. Classes 22 and 23 are
            // refusals of the event; others (57: the server shutting down or starting, 40: a
            // conflict, 53: resources) are worth another attempt.
            if let state = error.serverInfo?[.sqlState] {
                if state.hasPrefix("22") || state.hasPrefix("23") {
                    return .refused("SQLSTATE \(state): \(error.serverInfo?[.message] ?? "")")
                }
                return .broken(mayHaveCommitted: false)
            }
            // The connection broke: only a COMMIT already sent may have committed.
            return .broken(mayHaveCommitted: stage.name == "COMMIT")
        } catch {
            return .broken(mayHaveCommitted: stage.name == "COMMIT")
        }
    }

    /// `body`'s value, or nil when it takes longer than `limit` (it is then left to finish on
    /// its own: a submit stuck on a broken connection must not stop its producer).
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
        let once = Once()
        return await withCheckedContinuation { continuation in
            let timer = Task {
                try await Task.sleep(for: limit)
                if once.claim() { continuation.resume(returning: nil) }
            }
            Task {
                let value = await body()
                timer.cancel()
                if once.claim() { continuation.resume(returning: value) }
            }
        }
    }

    private final class Once: Sendable {
        private let claimed = Mutex(false)
        /// True the first time only.
        func claim() -> Bool { claimed.withLock { was in defer { was = true }; return !was } }
    }
}

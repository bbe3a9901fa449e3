import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import Foundation
import PostgresNIO
import Synchronization

/// Events for worker tests: meeting.cancelled, which needs no category.
enum WorkerEvents {
    static func json(_ id: String, user: String) -> String {
        EventLine.json(id, "meeting.cancelled", user: user, data: #"{"meeting_id":"m"}"#)
    }

    /// `perUser` events for each of `users` users, interleaved: u0, u1, …, u0, u1, …
    static func interleaved(users: Int, perUser: Int, prefix: String = "e") -> [String] {
        (0..<perUser).flatMap { round in (0..<users).map { json("\(prefix)-\(round)-\($0)", user: "u\($0)") } }
    }
}

/// Workers run in this process until nothing is left to decide (`drain`): actiond's router,
/// holding responses for `holdWindow`, unless a test brings its own `router`.
enum WorkerDrain {
    static func run(_ db: TestDatabase, router: (any EventRouting)? = nil, holdWindow: Duration = .seconds(600),
                    concurrency: Int = 4, batchSize: Int = 50, retry: RetryPolicy = RetryPolicy()) async throws {
        let configuration = WorkerConfiguration(concurrency: concurrency, batchSize: batchSize, drain: true, retry: retry)
        try await Workers(client: db.client, keys: TestKeys.shared, router: router ?? EventRouter(rules: ResponseRules(holdWindow: holdWindow)),
                          configuration: configuration, logger: db.logger).run()
    }
}

/// What a finished run left in the database: the checks every worker test makes.
struct Ledger: Equatable, CustomStringConvertible {
    var events: Int
    var outcomes: Int
    var queued: Int
    var usersWithWork: Int
    /// Sum of user_progress.processed_events: the workers' effect, counted once per event.
    var processed: Int
    /// Users whose processed count differs from their number of non-dead outcomes, or whose
    /// last position is not their newest event's.
    var usersOff: Int

    static func read(_ db: TestDatabase) async throws -> Ledger {
        let row = try await db.client.query("""
            SELECT (SELECT count(*) FROM actiond.events),
                   (SELECT count(*) FROM actiond.outcomes),
                   (SELECT count(*) FROM actiond.pending_events),
                   (SELECT count(*) FROM actiond.waiting_users),
                   (SELECT coalesce(sum(processed_events), 0)::bigint FROM actiond.user_progress),
                   (SELECT count(*) FROM (
                        SELECT e.user_id, count(o.position) FILTER (WHERE o.outcome <> 'dead') AS done, max(e.position) AS newest
                        FROM actiond.events e LEFT JOIN actiond.outcomes o ON o.position = e.position
                        GROUP BY e.user_id) u
                    LEFT JOIN actiond.user_progress p ON p.user_id = u.user_id
                    WHERE coalesce(p.processed_events, 0) <> u.done OR (u.done > 0 AND p.last_position <> u.newest))
            """, logger: db.logger).collect().first!
        let (events, outcomes, queued, users, processed, off) = try row.decode((Int, Int, Int, Int, Int, Int).self)
        return Ledger(events: events, outcomes: outcomes, queued: queued, usersWithWork: users, processed: processed, usersOff: off)
    }

    /// Every event has exactly one outcome and its effect happened exactly once.
    var isExact: Bool { outcomes == events && queued == 0 && usersWithWork == 0 && processed == events && usersOff == 0 }

    var description: String {
        "events \(events), outcomes \(outcomes), queued \(queued), users with work \(usersWithWork), processed \(processed), users off \(usersOff)"
    }
}

/// A handler that checks, as workers call it, that no user has two events in flight and
/// that each user's events arrive in position order; optionally failing some events.
final class CheckingRouter: EventRouting {
    struct State {
        var inFlight: Set<String> = []
        var seen: [String: [Int64]] = [:]
        var violations: [String] = []
        var mostUsersAtOnce = 0
        var attempts: [String: [ContinuousClock.Instant]] = [:]
    }

    let state = Mutex(State())
    /// Event ids that fail while listed.
    let failing: Mutex<Set<String>>
    let pause: Duration

    init(failing: Set<String> = [], pause: Duration = .zero) {
        self.failing = Mutex(failing)
        self.pause = pause
    }

    func handle(_ event: LoggedEvent, in _: WorkingSet, now: Date) async throws -> EventDecision {
        state.withLock { state in
            if !state.inFlight.insert(event.userID).inserted {
                state.violations.append("\(event.userID) had two events in flight (position \(event.position))")
            }
            state.mostUsersAtOnce = max(state.mostUsersAtOnce, state.inFlight.count)
            state.attempts[event.id, default: []].append(ContinuousClock.now)
        }
        if pause > .zero { try await Task.sleep(for: pause) }
        let fails = failing.withLock { $0.contains(event.id) }
        state.withLock { state in
            state.inFlight.remove(event.userID)
            if !fails {
                if let last = state.seen[event.userID]?.last, last >= event.position {
                    state.violations.append("\(event.userID): position \(event.position) after \(last)")
                }
                state.seen[event.userID, default: []].append(event.position)
            }
        }
        if fails { throw TestHandlerError(id: event.id) }
        return .applied
    }
}

struct TestHandlerError: Error, CustomStringConvertible {
    var id: String
    var description: String { "test handler refuses \(id)" }
}

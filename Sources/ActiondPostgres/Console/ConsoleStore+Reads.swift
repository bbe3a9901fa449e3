import Foundation
import PostgresNIO

/// What the console's pages read: each a `console_*` function or a report view, as
/// `actiond_reader`, bounded by the function (a page size it caps, a key to continue after).
extension ConsoleStore {
    /// What a dead-letter list is filtered by; nil fields match everything.
    package struct DeadLetterFilter: Sendable, Equatable {
        package var category: String?
        package var type: String?
        /// A case-insensitive part of the last error.
        package var error: String?
        /// Failed at least this many seconds ago.
        package var olderThanSeconds: Int?

        package init(category: String? = nil, type: String? = nil, error: String? = nil, olderThanSeconds: Int? = nil) {
            self.category = category
            self.type = type
            self.error = error
            self.olderThanSeconds = olderThanSeconds
        }

        package var isEmpty: Bool { category == nil && type == nil && error == nil && olderThanSeconds == nil }

        /// The interval literal `console_*` functions take (cast in SQL from text).
        var olderThan: String? { olderThanSeconds.map { "\($0) seconds" } }
    }

    package func queue() async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.report_queue r", as: .reader)
    }

    package func latency() async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.report_latency r", as: .reader)
    }

    package func throughput(minutes: Int) async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_throughput(\(Int32(clamping: minutes))) r", as: .reader)
    }

    package func outcomes(category: String?, outcome: String?) async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_outcomes(\(category), \(outcome)) r", as: .reader)
    }

    package func liveWorkers() async throws -> Int {
        Int(try await value("SELECT actiond.console_live_workers()", as: .reader, of: Int32.self) ?? 0)
    }

    package func pauses() async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_pauses() r", as: .reader)
    }

    package func categoryPauses() async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_category_pauses() r", as: .reader)
    }

    package func deadLetters(_ filter: DeadLetterFilter, before position: Int64?, pageSize: Int) async throws -> [ConsoleRecord] {
        try await records("""
            SELECT to_jsonb(r)::text FROM actiond.console_dead_letters(\(filter.category), \(filter.type), \(filter.error), \
            \(filter.olderThan)::interval, \(position), \(Int32(clamping: pageSize))) r
            """, as: .reader)
    }

    package func deadLetterCount(_ filter: DeadLetterFilter) async throws -> Int64 {
        try await value("""
            SELECT actiond.console_dead_letter_count(\(filter.category), \(filter.type), \(filter.error), \(filter.olderThan)::interval)
            """, as: .reader, of: Int64.self) ?? 0
    }

    package func deadLetterPositions(_ filter: DeadLetterFilter, cap: Int) async throws -> [Int64] {
        try await value("""
            SELECT actiond.console_dead_letter_positions(\(filter.category), \(filter.type), \(filter.error), \
            \(filter.olderThan)::interval, \(Int32(clamping: cap)))
            """, as: .reader, of: [Int64].self) ?? []
    }

    package func deadLetter(position: Int64) async throws -> ConsoleRecord? {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_dead_letter(\(position)) r", as: .reader).first
    }

    package func trail(user: String?, requestID: String?, before position: Int64?, pageSize: Int) async throws -> [ConsoleRecord] {
        try await records("""
            SELECT to_jsonb(r)::text FROM actiond.console_trail(\(user), \(requestID), \(position), \(Int32(clamping: pageSize))) r
            """, as: .reader)
    }

    package func person(_ user: String) async throws -> ConsoleRecord? {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_person(\(user)) r", as: .reader).first
    }

    /// The rows of one handler report view for one user (as JSON objects).
    package func handlerRows(view: String, user: String, pageSize: Int) async throws -> [ConsoleRecord] {
        try await records("SELECT r::text FROM actiond.console_handler_rows(\(view), \(user), \(Int32(clamping: pageSize))) r", as: .reader)
    }

    package func categories() async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_categories() r", as: .reader)
    }

    package func audit(before id: Int64?, pageSize: Int) async throws -> [ConsoleRecord] {
        try await records("SELECT to_jsonb(r)::text FROM actiond.console_audit(\(id), \(Int32(clamping: pageSize))) r", as: .reader)
    }
}

/// The console's actions, as `actiond_operator`: each function audits itself.
extension ConsoleStore {
    package func retry(positions: [Int64], operator: String, target: String) async throws -> Int64 {
        try await value("SELECT actiond.console_retry(\(`operator`), \(positions), \(target))", as: .operator, of: Int64.self) ?? 0
    }

    package func discard(positions: [Int64], operator: String, target: String) async throws -> Int64 {
        try await value("SELECT actiond.console_discard(\(`operator`), \(positions), \(target))", as: .operator, of: Int64.self) ?? 0
    }

    package func pause(user: String?, operator: String) async throws -> Bool {
        try await value("SELECT actiond.console_pause(\(`operator`), \(user))", as: .operator, of: Bool.self) ?? false
    }

    package func resume(user: String?, operator: String) async throws -> Int {
        Int(try await value("SELECT actiond.console_resume(\(`operator`), \(user))", as: .operator, of: Int32.self) ?? 0)
    }

    package func pause(category: String, operator: String) async throws -> Bool {
        try await value("SELECT actiond.console_pause_category(\(`operator`), \(category))", as: .operator, of: Bool.self) ?? false
    }

    package func resume(category: String, operator: String) async throws -> Int {
        Int(try await value("SELECT actiond.console_resume_category(\(`operator`), \(category))", as: .operator, of: Int32.self) ?? 0)
    }
}

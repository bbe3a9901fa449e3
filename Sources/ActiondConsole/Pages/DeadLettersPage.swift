import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/dead-letters`: the list, filtered by category, type, error and age, newest first, 50 a
/// page (keyset: `before` the last position shown); `/dead-letters/POSITION`: one with its
/// attempts and last error. Operators retry or discard one, the selected ones, or every one
/// matching the filter (at most `matchingCap`), each after a confirmation naming the count.
struct DeadLettersPage: Sendable {
    static let pageSize = 50
    static let matchingCap = 10_000

    struct Row: Sendable {
        let position: String
        let eventID: String
        let type: String
        let userID: String
        let userLink: String
        let category: String
        let action: String
        let attempts: String
        let lastError: String
        let failedAt: String
    }

    struct Filter: Sendable {
        let category: String
        let type: String
        let error: String
        let olderThan: String
        let active: Bool
        let query: String
    }

    struct ListModel: Sendable {
        let layout: PageLayout
        let filter: Filter
        let rows: [Row]
        let total: String
        let nextPage: String?
        let empty: Bool
        let filterProblem: String?
    }

    /// One dead letter: the list's row, and what only the detail shows.
    struct DetailModel: Sendable {
        let layout: PageLayout
        let letter: Row
        let requestID: String
        let occurredAt: String
        let submittedAt: String
        let discarded: Bool
    }

    struct ConfirmModel: Sendable {
        let layout: PageLayout
        let verb: String
        let action: String
        let count: String
        let what: String
        let fields: [Field]
        struct Field: Sendable { let name: String; let value: String }
    }

    let store: ConsoleStore
    let templates: ConsoleTemplates

    func addRoutes(pages: RouterGroup<ConsoleContext>, actions: RouterGroup<ConsoleContext>) {
        pages.get("/dead-letters") { request, context in try await list(request, context) }
        pages.get("/dead-letters/:position") { _, context in
            guard let position = context.parameters.get("position", as: Int64.self) else {
                return ConsoleResponses.text(.badRequest, "position: must be a whole number")
            }
            return try await detail(position, context)
        }
        actions.post("/dead-letters/retry") { request, context in try await act(.retry, request, context) }
        actions.post("/dead-letters/discard") { request, context in try await act(.discard, request, context) }
    }

    // MARK: Reading

    private func filter(from parameters: [String: String]) -> (ConsoleStore.DeadLetterFilter, Filter, String?) {
        func value(_ name: String) -> String? {
            parameters[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        var problem: String?
        var seconds: Int?
        if let text = value("older_than") {
            if let parsed = AgeText.seconds(text) { seconds = parsed } else {
                problem = "older than: \(AgeText.rule)"
            }
        }
        let storeFilter = ConsoleStore.DeadLetterFilter(category: value("category"), type: value("type"), error: value("error"),
                                                        olderThanSeconds: seconds)
        let query = Query.string([("category", value("category")), ("type", value("type")), ("error", value("error")),
                                  ("older_than", value("older_than"))])
        let shown = Filter(category: value("category") ?? "", type: value("type") ?? "", error: value("error") ?? "",
                           olderThan: value("older_than") ?? "", active: !storeFilter.isEmpty, query: query)
        return (storeFilter, shown, problem)
    }

    private func list(_ request: Request, _ context: ConsoleContext) async throws -> Response {
        let parameters = Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { first, _ in first })
        let (storeFilter, shown, problem) = filter(from: parameters)
        let before = parameters["before"].flatMap { Int64($0) }
        async let records = problem == nil ? store.deadLetters(storeFilter, before: before, pageSize: DeadLettersPage.pageSize) : []
        async let total = problem == nil ? store.deadLetterCount(storeFilter) : 0
        let rows = try await records.map(DeadLettersPage.row)
        let next = rows.count == DeadLettersPage.pageSize ? rows.last.map { last in
            "/dead-letters" + Query.string([("category", shown.category.nilIfEmpty), ("type", shown.type.nilIfEmpty),
                                            ("error", shown.error.nilIfEmpty), ("older_than", shown.olderThan.nilIfEmpty),
                                            ("before", last.position)])
        } : nil
        let model = ListModel(layout: PageLayout(title: "Dead letters", current: "/dead-letters", context: context, notice: parameters["notice"]),
                              filter: shown, rows: rows, total: Show.count(try await total), nextPage: next ?? nil,
                              empty: rows.isEmpty, filterProblem: problem)
        return ConsoleResponses.html(templates.render("dead-letters", model))
    }

    static func row(_ record: ConsoleRecord) -> Row {
        let user = record.string("user_id") ?? ""
        return Row(position: record.string("position") ?? "", eventID: record.string("event_id") ?? "", type: record.string("type") ?? "",
                   userID: user, userLink: "/person" + Query.string([("q", user)]), category: record.string("category") ?? "",
                   action: record.string("action") ?? "", attempts: record.string("attempts") ?? "",
                   lastError: record.string("last_error") ?? "", failedAt: Show.time(record.date("failed_at")))
    }

    private func detail(_ position: Int64, _ context: ConsoleContext) async throws -> Response {
        guard let record = try await store.deadLetter(position: position) else {
            return ConsoleResponses.html(templates.render("not-found", NotFound(
                layout: PageLayout(title: "Not a dead letter", current: "/dead-letters", context: context),
                message: "Position \(position) is not a dead letter (it may have been retried or discarded).")), status: .notFound)
        }
        let model = DetailModel(
            layout: PageLayout(title: "Dead letter \(position)", current: "/dead-letters", context: context),
            letter: DeadLettersPage.row(record), requestID: record.string("request_id") ?? "",
            occurredAt: Show.time(record.date("occurred_at")), submittedAt: Show.time(record.date("submitted_at")),
            discarded: record.bool("discarded") ?? false)
        return ConsoleResponses.html(templates.render("dead-letter", model))
    }

    // MARK: Acting

    enum Verb: String { case retry, discard }

    private func act(_ verb: Verb, _ request: Request, _ context: ConsoleContext) async throws -> Response {
        let form = try await FormBody.read(request)
        guard let acting = context.consoleOperator else { return ConsoleResponses.text(.unauthorized, "Sign in first.") }
        let scope = form.first("scope") ?? "selected"
        var positions: [Int64]
        var what: String
        var carried: [ConfirmModel.Field] = [.init(name: "scope", value: scope)]
        switch scope {
        case "matching":
            let (storeFilter, shown, problem) = filter(from: form.dictionary)
            if let problem { return ConsoleResponses.text(.badRequest, problem) }
            positions = try await store.deadLetterPositions(storeFilter, cap: DeadLettersPage.matchingCap)
            what = "every dead letter matching " + (shown.active ? DeadLettersPage.describe(shown) : "no filter (all of them)")
                + (positions.count == DeadLettersPage.matchingCap ? " (the first \(Show.count(Int64(positions.count))))" : "")
            for name in ["category", "type", "error", "older_than"] {
                if let value = form.first(name) { carried.append(.init(name: name, value: value)) }
            }
        default:
            positions = form.all("position").compactMap { Int64($0) }
            if positions.isEmpty { return ConsoleResponses.redirect(to: "/dead-letters" + Query.string([("notice", "Select at least one dead letter first.")])) }
            if positions.count > DeadLettersPage.matchingCap { return ConsoleResponses.text(.badRequest, "position: at most \(DeadLettersPage.matchingCap) at once") }
            what = positions.count == 1 ? "dead letter \(positions[0])" : "\(positions.count) selected dead letters"
            carried += positions.map { .init(name: "position", value: String($0)) }
        }
        guard form.first("confirmed") == "yes" else {
            let model = ConfirmModel(layout: PageLayout(title: "Confirm", current: "/dead-letters", context: context),
                                     verb: verb == .retry ? "Retry" : "Discard", action: "/dead-letters/\(verb.rawValue)",
                                     count: Show.count(Int64(positions.count)), what: what, fields: carried)
            return ConsoleResponses.html(templates.render("confirm", model))
        }
        let target = String(what.prefix(200))
        let changed = verb == .retry
            ? try await store.retry(positions: positions, operator: acting.name, target: target)
            : try await store.discard(positions: positions, operator: acting.name, target: target)
        let notice = (verb == .retry ? "Retried " : "Discarded ") + "\(Show.count(changed)) of \(Show.count(Int64(positions.count))) (\(what))."
        return ConsoleResponses.redirect(to: "/dead-letters" + Query.string([("notice", notice)]))
    }

    static func describe(_ filter: Filter) -> String {
        [("category", filter.category), ("type", filter.type), ("error", filter.error), ("older than", filter.olderThan)]
            .filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
}

struct NotFound: Sendable {
    let layout: PageLayout
    let message: String
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

import ActiondDomain
import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/person?q=…`: one person's events, newest first (their trail: status, outcome, reason),
/// their stash, pauses, state in each handler's report view, and whether they were
/// forgotten. `q` is a user id, or else a request id (the notification and its responses).
/// Reads one user's key range only.
struct PersonPage: Sendable {
    static let pageSize = 50

    struct TrailRow: Sendable {
        let position: String
        let eventID: String
        let type: String
        let category: String
        let action: String
        let requestID: String
        let occurredAt: String
        let submittedAt: String
        let status: String
        let outcome: String
        let reason: String
        let reasonMeaning: String?
        let attempts: String
        let decidedAt: String
        let userID: String
        let userLink: String
        let deadLink: String?
    }

    struct HandlerView: Sendable {
        let name: String
        let columns: [String]
        let rows: [Cells]
        let empty: Bool
    }

    struct Cells: Sendable {
        let cells: [String]
    }

    struct Model: Sendable {
        let layout: PageLayout
        let query: String
        let searched: Bool
        let found: Bool
        let byRequest: Bool
        let userID: String
        let forgotten: Bool
        let paused: Bool
        let everyonePaused: Bool
        let stashed: String
        let stashAge: String?
        let events: String
        let dead: String
        let trail: [TrailRow]
        let nextPage: String?
        let views: [HandlerView]
    }

    let store: ConsoleStore
    let templates: ConsoleTemplates
    let reportViews: [ReportView]

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/person") { request, context in
            let query = request.uri.queryParameters["q"].map(String.init) ?? ""
            let before = request.uri.queryParameters["before"].flatMap { Int64(String($0)) }
            return try await render(query: query, before: before, context: context)
        }
    }

    private func render(query: String, before: Int64?, context: ConsoleContext) async throws -> Response {
        let layout = PageLayout(title: query.isEmpty ? "A person" : "A person: \(query)", current: "/person", context: context)
        guard !query.isEmpty else {
            return ConsoleResponses.html(templates.render("person", Model(
                layout: layout, query: "", searched: false, found: false, byRequest: false, userID: "", forgotten: false, paused: false,
                everyonePaused: false, stashed: "", stashAge: nil, events: "", dead: "", trail: [], nextPage: nil, views: [])))
        }
        var byRequest = false
        var person = try await store.person(query)
        var trail = try await store.trail(user: query, requestID: nil, before: before, pageSize: PersonPage.pageSize)
        if (person?.int("events") ?? 0) == 0 && trail.isEmpty {
            trail = try await store.trail(user: nil, requestID: query, before: before, pageSize: PersonPage.pageSize)
            byRequest = !trail.isEmpty
            person = nil
        }
        var views: [HandlerView] = []
        if !byRequest {
            for view in reportViews {
                let rows = try await store.handlerRows(view: view.name, user: query, pageSize: 50)
                let columns = PersonPage.columns(of: view, present: rows.first.map { Set($0.values.keys) } ?? [])
                let times = Set((view.columns + view.sharedColumns).filter { $0.type == .timestamp }.map(\.name))
                views.append(HandlerView(name: view.name, columns: columns, rows: rows.map { row in
                    Cells(cells: columns.map { times.contains($0) ? Show.time(row.date($0)) : row.string($0) ?? "" })
                }, empty: rows.isEmpty))
            }
        }
        let rows = trail.map { record -> TrailRow in
            let user = record.string("user_id") ?? ""
            let status = record.string("status") ?? ""
            return TrailRow(
                position: record.string("position") ?? "", eventID: record.string("event_id") ?? "", type: record.string("type") ?? "",
                category: record.string("category") ?? "", action: record.string("action") ?? "", requestID: record.string("request_id") ?? "",
                occurredAt: Show.time(record.date("occurred_at")), submittedAt: Show.time(record.date("submitted_at")),
                status: status, outcome: record.string("outcome") ?? "", reason: record.string("reason") ?? "",
                reasonMeaning: Show.meaning(ofReason: record.string("reason")),
                attempts: record.string("attempts") ?? "", decidedAt: Show.time(record.date("decided_at")),
                userID: user, userLink: "/person" + Query.string([("q", user)]),
                deadLink: status == "dead" ? "/dead-letters/" + (record.string("position") ?? "") : nil)
        }
        let next = rows.count == PersonPage.pageSize ? rows.last.map { "/person" + Query.string([("q", query), ("before", $0.position)]) } : nil
        let model = Model(
            layout: layout, query: query, searched: true, found: person.map { ($0.int("events") ?? 0) > 0 } ?? false || byRequest,
            byRequest: byRequest, userID: byRequest ? "" : query, forgotten: person?.bool("forgotten") ?? false,
            paused: person?.bool("paused") ?? false, everyonePaused: person?.bool("everyone_paused") ?? false,
            stashed: Show.count(person?.int("stashed")), stashAge: (person?.int("stashed") ?? 0) > 0 ? Show.age(seconds: person?.double("stash_oldest_age_seconds")) : nil,
            events: Show.count(person?.int("events")), dead: Show.count(person?.int("dead")),
            trail: rows, nextPage: next ?? nil, views: views)
        return ConsoleResponses.html(templates.render("person", model))
    }
}

extension PersonPage {
    /// A handler view's columns as its view declares them (`HandlerReportViews`: the id, the
    /// user, the state's columns, the shared state's), as `actiond report` prints them; a column
    /// the declaration lacks (a view of another build) after them, by name.
    static func columns(of view: ReportView, present: Set<String>) -> [String] {
        let declared = [view.idColumn, "user_id"] + view.columns.map(\.name) + view.sharedColumns.map(\.name)
        return declared.filter(present.contains) + present.subtracting(declared).sorted()
    }
}

import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/audit`: every action taken in the console, newest first: who, what, when, how many.
struct AuditPage: Sendable {
    static let pageSize = 50

    struct Row: Sendable {
        let id: String
        let at: String
        let `operator`: String
        let action: String
        let target: String
        let events: String
    }

    struct Model: Sendable {
        let layout: PageLayout
        let rows: [Row]
        let empty: Bool
        let nextPage: String?
    }

    let store: ConsoleStore
    let templates: ConsoleTemplates

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/audit") { request, context in
            let before = request.uri.queryParameters["before"].flatMap { Int64(String($0)) }
            let rows = try await store.audit(before: before, pageSize: AuditPage.pageSize).map {
                Row(id: $0.string("id") ?? "", at: Show.time($0.date("at")), operator: $0.string("operator") ?? "",
                    action: $0.string("action") ?? "", target: $0.string("target") ?? "", events: Show.count($0.int("events")))
            }
            let next = rows.count == AuditPage.pageSize ? rows.last.map { "/audit" + Query.string([("before", $0.id)]) } : nil
            let model = Model(layout: PageLayout(title: "Audit", current: "/audit", context: context), rows: rows,
                              empty: rows.isEmpty, nextPage: next ?? nil)
            return ConsoleResponses.html(templates.render("audit", model))
        }
    }
}

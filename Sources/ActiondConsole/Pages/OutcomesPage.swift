import ActiondDomain
import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/outcomes`: events per category, action, outcome and reason (all time), filterable by
/// category and outcome.
struct OutcomesPage: Sendable {
    struct Row: Sendable {
        let category: String
        let action: String
        let outcome: String
        let reason: String
        /// What the reason code means (the built-in codes), shown beside it.
        let reasonMeaning: String?
        let events: String
    }

    struct Model: Sendable {
        let layout: PageLayout
        let category: String
        let outcome: String
        let outcomes: [Choice]
        let rows: [Row]
        let empty: Bool
    }

    struct Choice: Sendable {
        let value: String
        let selected: Bool
    }

    static let outcomeNames = ["applied", "rejected", "superseded", "stashed", "dead"]

    let store: ConsoleStore
    let templates: ConsoleTemplates

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/outcomes") { request, context in
            let category = request.uri.queryParameters["category"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            let outcome = request.uri.queryParameters["outcome"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            let rows = try await store.outcomes(category: category, outcome: outcome).map {
                Row(category: $0.string("category") ?? "(none)", action: $0.string("action") ?? "", outcome: $0.string("outcome") ?? "",
                    reason: $0.string("reason") ?? "", reasonMeaning: Show.meaning(ofReason: $0.string("reason")),
                    events: Show.count($0.int("events")))
            }
            let model = Model(layout: PageLayout(title: "Outcomes", current: "/outcomes", context: context),
                              category: category ?? "", outcome: outcome ?? "",
                              outcomes: OutcomesPage.outcomeNames.map { Choice(value: $0, selected: $0 == outcome) },
                              rows: rows, empty: rows.isEmpty)
            return ConsoleResponses.html(templates.render("outcomes", model))
        }
    }
}

import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/pauses`: the pauses in force; operators pause and resume everyone or one user.
struct PausesPage: Sendable {
    struct Row: Sendable {
        let who: String
        let userID: String
        let everyone: Bool
        let since: String
    }

    struct Model: Sendable {
        let layout: PageLayout
        let rows: [Row]
        let empty: Bool
        let everyonePaused: Bool
    }

    let store: ConsoleStore
    let templates: ConsoleTemplates

    func addRoutes(pages: RouterGroup<ConsoleContext>, actions: RouterGroup<ConsoleContext>) {
        pages.get("/pauses") { request, context in
            let rows = try await store.pauses().map { record -> Row in
                let user = record.string("user_id")
                return Row(who: user ?? "everyone", userID: user ?? "", everyone: user == nil,
                           since: Show.time(record.date("paused_at")))
            }
            let model = Model(layout: PageLayout(title: "Pauses", current: "/pauses", context: context,
                                                 notice: request.uri.queryParameters["notice"].map(String.init)),
                              rows: rows, empty: rows.isEmpty, everyonePaused: rows.contains { $0.everyone })
            return ConsoleResponses.html(templates.render("pauses", model))
        }
        actions.post("/pauses/pause") { request, context in
            let form = try await FormBody.read(request)
            let user = form.first("scope") == "everyone" ? nil : form.first("user_id")
            if form.first("scope") != "everyone" && (user ?? "").isEmpty {
                return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "user id: type the user to pause, or choose everyone.")]))
            }
            let added = try await store.pause(user: user, operator: context.consoleOperator?.name ?? "")
            let who = user.map { "user \($0)" } ?? "everyone"
            return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", added ? "Paused \(who)." : "\(who) was already paused.")]))
        }
        actions.post("/pauses/resume") { request, context in
            let form = try await FormBody.read(request)
            let user = form.first("scope") == "everyone" ? nil : form.first("user_id")
            if form.first("scope") != "everyone" && (user ?? "").isEmpty {
                return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "user id: type the user to resume, or choose everyone.")]))
            }
            let ended = try await store.resume(user: user, operator: context.consoleOperator?.name ?? "")
            return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "Resumed: \(ended) pause\(ended == 1 ? "" : "s") ended.")]))
        }
    }
}

import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import PostgresNIO

/// `/pauses`: the pauses in force; operators pause and resume everyone, a category (its
/// users wait from their next event of it) or one user.
struct PausesPage: Sendable {
    struct Row: Sendable {
        let who: String
        /// The form's scope to resume this pause: everyone, user or category.
        let scope: String
        let userID: String
        let category: String
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
            let users = try await store.pauses().map { record -> Row in
                let user = record.string("user_id")
                return Row(who: user.map { "user \($0)" } ?? "everyone", scope: user == nil ? "everyone" : "user", userID: user ?? "",
                           category: "", everyone: user == nil, since: Show.time(record.date("paused_at")))
            }
            let categories = try await store.categoryPauses().map { record -> Row in
                let category = record.string("category") ?? ""
                return Row(who: "category \(category)", scope: "category", userID: "", category: category, everyone: false,
                           since: Show.time(record.date("paused_at")))
            }
            let rows = users.prefix { $0.everyone } + categories + users.drop { $0.everyone }
            let model = Model(layout: PageLayout(title: "Pauses", current: "/pauses", context: context,
                                                 notice: request.uri.queryParameters["notice"].map(String.init)),
                              rows: rows, empty: rows.isEmpty, everyonePaused: rows.contains { $0.everyone })
            return ConsoleResponses.html(templates.render("pauses", model))
        }
        actions.post("/pauses/pause") { request, context in
            let form = try await FormBody.read(request)
            if form.first("scope") == "category" {
                let category = form.first("category") ?? ""
                if category.isEmpty {
                    return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "category: type the category to pause.")]))
                }
                do {
                    let added = try await store.pause(category: category, operator: context.consoleOperator?.name ?? "")
                    return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", added ? "Paused category \(category)." : "Category \(category) was already paused.")]))
                } catch let error as PSQLError where error.sqlState == .invalidParameterValue {
                    return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "category: \(category) is not a registered category.")]))
                }
            }
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
            if form.first("scope") == "category" {
                let category = form.first("category") ?? ""
                if category.isEmpty {
                    return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "category: type the category to resume.")]))
                }
                let ended = try await store.resume(category: category, operator: context.consoleOperator?.name ?? "")
                return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", ended > 0 ? "Resumed category \(category)." : "Category \(category) was not paused.")]))
            }
            let user = form.first("scope") == "everyone" ? nil : form.first("user_id")
            if form.first("scope") != "everyone" && (user ?? "").isEmpty {
                return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "user id: type the user to resume, or choose everyone.")]))
            }
            let ended = try await store.resume(user: user, operator: context.consoleOperator?.name ?? "")
            return ConsoleResponses.redirect(to: "/pauses" + Query.string([("notice", "Resumed: \(ended) pause\(ended == 1 ? "" : "s") ended.")]))
        }
    }
}

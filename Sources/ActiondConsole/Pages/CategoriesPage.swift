import ActiondPostgres
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `/categories`: the registry's current version: each category, its options and handler,
/// and its actions with theirs.
struct CategoriesPage: Sendable {
    struct Action: Sendable {
        let identifier: String
        let title: String
        let options: String
        let textInput: Bool
    }

    struct Category: Sendable {
        let identifier: String
        let options: String?
        let handler: String?
        let actions: [Action]
        let noActions: Bool
    }

    struct Model: Sendable {
        let layout: PageLayout
        let version: String
        let categories: [Category]
    }

    let store: ConsoleStore
    let templates: ConsoleTemplates

    func addRoutes(to router: RouterGroup<ConsoleContext>) {
        router.get("/categories") { _, context in
            let records = try await store.categories()
            var order: [String] = []
            var byCategory: [String: [ConsoleRecord]] = [:]
            for record in records {
                let name = record.string("category") ?? ""
                if byCategory[name] == nil { order.append(name) }
                byCategory[name, default: []].append(record)
            }
            let categories = order.map { name -> Category in
                let rows = byCategory[name] ?? []
                let first = rows.first
                let actions = rows.compactMap { row -> Action? in
                    guard let action = row.string("action") else { return nil }
                    return Action(identifier: action, title: row.string("action_title") ?? "",
                                  options: row.strings("action_options").joined(separator: ", "),
                                  textInput: row.bool("text_input") ?? false)
                }
                let options = first?.strings("category_options").joined(separator: ", ") ?? ""
                return Category(identifier: name, options: options.isEmpty ? nil : options,
                                handler: first?.string("handler").flatMap { $0.isEmpty ? nil : $0 }, actions: actions, noActions: actions.isEmpty)
            }
            let model = Model(layout: PageLayout(title: "Categories", current: "/categories", context: context),
                              version: records.first?.string("version") ?? "", categories: categories)
            return ConsoleResponses.html(templates.render("categories", model))
        }
    }
}

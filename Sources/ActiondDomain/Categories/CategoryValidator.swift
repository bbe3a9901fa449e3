/// The registry rules of docs/contract.md, "Categories" that concern the set as a whole or the values
/// of fields: identifiers, uniqueness, limits, reserved names, titles, text input.
enum CategoryValidator {
    static func problems(in categories: [NotificationCategory], handlers: CategoryHandlers) -> [CategoryProblem] {
        var problems: [CategoryProblem] = []
        let root = JSONPath.root.appending("categories")
        if categories.isEmpty {
            problems.append(CategoryProblem(root, .empty, "at least one category is required"))
        }
        // Identifiers compare byte for byte, as the device and PostgreSQL compare them.
        var categoryPaths: [ExactString: JSONPath] = [:]
        var actionPaths: [ExactString: JSONPath] = [:]
        let reserved = Set(SystemActionIdentifier.allCases.map { ExactString($0.rawValue) })

        for (index, category) in categories.enumerated() {
            let path = root.appending(index: index)
            let idPath = path.appending("identifier")
            if category.identifier.isEmpty {
                problems.append(CategoryProblem(idPath, .empty, "identifier must not be empty"))
            } else if reserved.contains(ExactString(category.identifier)) {
                problems.append(CategoryProblem(idPath, .reservedIdentifier, "\(category.identifier) is a system identifier and cannot name a category"))
            } else if let first = categoryPaths[ExactString(category.identifier)] {
                problems.append(CategoryProblem(idPath, .duplicateCategory, "category \(category.identifier) is already defined at \(first)"))
            } else {
                categoryPaths[ExactString(category.identifier)] = path
            }
            if category.actions.count > CategoryRegistry.maximumActions {
                problems.append(CategoryProblem(
                    path.appending("actions"), .tooManyActions,
                    "\(category.actions.count) actions; at most \(CategoryRegistry.maximumActions) are allowed (banners show only the first \(CategoryRegistry.bannerActionLimit))"))
            }
            problems += duplicateOptions(category.options.map(\.rawValue), at: path.appending("options"))

            for (actionIndex, action) in category.actions.enumerated() {
                let actionPath = path.appending("actions").appending(index: actionIndex)
                let actionIDPath = actionPath.appending("identifier")
                if action.identifier.isEmpty {
                    problems.append(CategoryProblem(actionIDPath, .empty, "identifier must not be empty"))
                } else if reserved.contains(ExactString(action.identifier)) {
                    problems.append(CategoryProblem(actionIDPath, .reservedIdentifier, "\(action.identifier) is reserved for the system action"))
                } else if let first = actionPaths[ExactString(action.identifier)] {
                    problems.append(CategoryProblem(actionIDPath, .duplicateAction, "action \(action.identifier) is already defined at \(first); action identifiers are unique across all categories"))
                } else {
                    actionPaths[ExactString(action.identifier)] = actionPath
                }
                if action.title.isEmpty {
                    problems.append(CategoryProblem(actionPath.appending("title"), .empty, "title must not be empty"))
                }
                if let textInput = action.textInput, textInput.buttonTitle.isEmpty {
                    problems.append(CategoryProblem(actionPath.appending("textInput").appending("buttonTitle"), .empty, "a text input action needs a button title"))
                }
                problems += duplicateOptions(action.options.map(\.rawValue), at: actionPath.appending("options"))
            }
            problems += settingProblems(category, handlers: handlers, at: path)
        }
        return problems
    }

    private static func duplicateOptions(_ options: [String], at path: JSONPath) -> [CategoryProblem] {
        var seen: Set<String> = []
        var problems: [CategoryProblem] = []
        for (index, option) in options.enumerated() where !seen.insert(option).inserted {
            problems.append(CategoryProblem(path.appending(index: index), .duplicateOption, "option \(option) is listed twice"))
        }
        return problems
    }

    private static func settingProblems(_ category: NotificationCategory, handlers: CategoryHandlers, at path: JSONPath) -> [CategoryProblem] {
        var problems: [CategoryProblem] = []
        if let name = category.handler, handlers.settings(of: name) == nil {
            return [CategoryProblem(path.appending("handler"), .unknownHandler,
                                    "unknown handler \(name); this build knows: \(handlers.names.joined(separator: ", "))")]
        }
        let known = Dictionary(uniqueKeysWithValues: (category.handler.flatMap { handlers.settings(of: $0) } ?? []).map { ($0.name, $0) })
        for (name, value) in category.settings.sorted(by: { $0.key < $1.key }) {
            guard let handler = category.handler, let setting = known[name] else {
                let accepted = known.keys.sorted().joined(separator: ", ")
                let rule = category.handler.map { "\($0) accepts: \(accepted.isEmpty ? "no settings" : accepted)" } ?? "a category without a handler takes no settings"
                problems.append(CategoryProblem(path.appending("settings").appending(name), .unknownSetting, "unknown setting \(name); \(rule)"))
                continue
            }
            _ = handler
            if value < setting.minimum || value > setting.maximum {
                let range = setting.maximum == Int.max ? "of at least \(setting.minimum)" : "from \(setting.minimum) to \(setting.maximum)"
                problems.append(CategoryProblem(path.appending("settings").appending(name), .invalidSetting, "\(name) must be an integer \(range), got \(value)"))
            }
        }
        return problems
    }
}

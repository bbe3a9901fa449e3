/// Reads the structure of a categories file: required fields, JSON types, known field names,
/// known options and handlers. Reads as much as it can, so that the value rules
/// (`CategoryValidator`) can still be checked and every problem reported in one go.
enum CategoryFileReader {
    private static let fileFields: Set<String> = ["categories"]
    private static let categoryFields: Set<String> = ["identifier", "options", "actions", "handler", "settings"]
    private static let actionFields: Set<String> = ["identifier", "title", "options", "textInput"]
    private static let textInputFields: Set<String> = ["buttonTitle", "placeholder"]

    /// `handlers`: the handlers a category may name (their settings' defaults are filled in);
    /// nil reads a stored registry, keeping handler names and settings as they are.
    static func read(_ document: JSONValue, handlers: CategoryHandlers?) -> ([NotificationCategory], [CategoryProblem]) {
        var reader = Reader(handlers: handlers)
        let root = JSONPath.root
        guard let file = reader.object(document, at: root) else { return ([], reader.problems) }
        reader.unknownFields(file, allowed: fileFields, at: root)
        guard let list = reader.array(file["categories"], at: root.appending("categories")) else { return ([], reader.problems) }
        var categories: [NotificationCategory] = []
        for (index, element) in list.enumerated() {
            let path = root.appending("categories").appending(index: index)
            // A placeholder keeps indices aligned; problems under an unreadable element are dropped.
            categories.append(reader.category(element, at: path) ?? NotificationCategory(identifier: ""))
        }
        return (categories, reader.problems)
    }

    private struct Reader {
        let handlers: CategoryHandlers?
        var problems: [CategoryProblem] = []

        mutating func category(_ value: JSONValue, at path: JSONPath) -> NotificationCategory? {
            guard let object = object(value, at: path) else { return nil }
            unknownFields(object, allowed: CategoryFileReader.categoryFields, at: path)
            let identifier = string(object["identifier"], at: path.appending("identifier")) ?? ""
            let options: [CategoryOption] = options(object["options"], at: path.appending("options"))
            var actions: [NotificationAction] = []
            if let list = array(object["actions"], at: path.appending("actions"), required: false) {
                for (index, element) in list.enumerated() {
                    let actionPath = path.appending("actions").appending(index: index)
                    actions.append(action(element, at: actionPath) ?? NotificationAction(identifier: "", title: ""))
                }
            }
            let handler = string(object["handler"], at: path.appending("handler"), required: false)
            var settings: [String: Int] = [:]
            var handlerIsUnknown = false
            if let handler, let handlers {
                if let declared = handlers.settings(of: handler) {
                    for setting in declared { settings[setting.name] = setting.defaultValue }
                } else {
                    handlerIsUnknown = true
                    problems.append(CategoryProblem(path.appending("handler"), .unknownHandler,
                                                    "unknown handler \(handler); this build knows: \(handlers.names.joined(separator: ", "))"))
                }
            }
            // Settings belong to the handler: with an unknown handler they cannot be judged.
            if !handlerIsUnknown, let given = self.object(object["settings"], at: path.appending("settings"), required: false) {
                for (name, value) in given {
                    if let integer = value.integerValue {
                        settings[name] = integer
                    } else {
                        problems.append(CategoryProblem(path.appending("settings").appending(name), .type, "must be an integer, got \(value.typeDescription)"))
                    }
                }
            }
            return NotificationCategory(identifier: identifier, options: options, actions: actions, handler: handler, settings: settings)
        }

        mutating func action(_ value: JSONValue, at path: JSONPath) -> NotificationAction? {
            guard let object = object(value, at: path) else { return nil }
            unknownFields(object, allowed: CategoryFileReader.actionFields, at: path)
            let identifier = string(object["identifier"], at: path.appending("identifier")) ?? ""
            let title = string(object["title"], at: path.appending("title")) ?? ""
            let options: [ActionOption] = options(object["options"], at: path.appending("options"))
            var textInput: TextInput?
            let inputPath = path.appending("textInput")
            if let input = self.object(object["textInput"], at: inputPath, required: false) {
                unknownFields(input, allowed: CategoryFileReader.textInputFields, at: inputPath)
                let button = string(input["buttonTitle"], at: inputPath.appending("buttonTitle"), rule: "a text input action needs a button title") ?? ""
                let placeholder = string(input["placeholder"], at: inputPath.appending("placeholder"), required: false) ?? ""
                textInput = TextInput(buttonTitle: button, placeholder: placeholder)
            }
            return NotificationAction(identifier: identifier, title: title, options: options, textInput: textInput)
        }

        mutating func options<Option: RawRepresentable & CaseIterable>(_ value: JSONValue?, at path: JSONPath) -> [Option] where Option.RawValue == String {
            guard let list = array(value, at: path, required: false) else { return [] }
            var options: [Option] = []
            for (index, element) in list.enumerated() {
                guard let name = string(element, at: path.appending(index: index)) else { continue }
                if let option = Option(rawValue: name) {
                    options.append(option)
                } else {
                    let allowed = Option.allCases.map(\.rawValue).joined(separator: ", ")
                    problems.append(CategoryProblem(path.appending(index: index), .unknownOption, "unknown option \(name); allowed: \(allowed)"))
                }
            }
            return options
        }

        mutating func unknownFields(_ object: [String: JSONValue], allowed: Set<String>, at path: JSONPath) {
            for key in object.keys.sorted() where !allowed.contains(key) {
                let known = allowed.sorted().joined(separator: ", ")
                problems.append(CategoryProblem(path.appending(key), .unknownField, "unknown field \(key); known fields: \(known)"))
            }
        }

        mutating func object(_ value: JSONValue?, at path: JSONPath, required: Bool = true) -> [String: JSONValue]? {
            typed(value, at: path, required: required, expected: "an object") { $0.objectValue }
        }

        mutating func array(_ value: JSONValue?, at path: JSONPath, required: Bool = true) -> [JSONValue]? {
            typed(value, at: path, required: required, expected: "an array") { $0.arrayValue }
        }

        mutating func string(_ value: JSONValue?, at path: JSONPath, required: Bool = true, rule: String? = nil) -> String? {
            typed(value, at: path, required: required, expected: "a string", rule: rule) { $0.stringValue }
        }

        private mutating func typed<T>(
            _ value: JSONValue?, at path: JSONPath, required: Bool, expected: String, rule: String? = nil,
            _ extract: (JSONValue) -> T?
        ) -> T? {
            guard let value, value != .null else {
                if required { problems.append(CategoryProblem(path, .required, rule ?? "required, \(expected)")) }
                return nil
            }
            guard let result = extract(value) else {
                problems.append(CategoryProblem(path, .type, "must be \(expected), got \(value.typeDescription)"))
                return nil
            }
            return result
        }
    }
}

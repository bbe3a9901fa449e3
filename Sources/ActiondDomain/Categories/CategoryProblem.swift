/// One thing wrong with a categories file: where, which rule, and a sentence for a person.
package struct CategoryProblem: Sendable, Hashable, CustomStringConvertible {
    /// Names of the rules a categories file is checked against.
    package enum Rule: String, Sendable, Hashable {
        case invalidJSON = "invalid_json"
        case required
        case type
        case empty
        case unknownField = "unknown_field"
        case duplicateCategory = "duplicate_category"
        case duplicateAction = "duplicate_action"
        case reservedIdentifier = "reserved_identifier"
        case tooManyActions = "too_many_actions"
        case unknownOption = "unknown_option"
        case duplicateOption = "duplicate_option"
        case unknownHandler = "unknown_handler"
        case unknownSetting = "unknown_setting"
        case invalidSetting = "invalid_setting"
    }

    package var path: JSONPath
    package var rule: Rule
    package var message: String

    package init(_ path: JSONPath, _ rule: Rule, _ message: String) {
        self.path = path
        self.rule = rule
        self.message = message
    }

    package var description: String { "\(path): \(message) [\(rule.rawValue)]" }
}

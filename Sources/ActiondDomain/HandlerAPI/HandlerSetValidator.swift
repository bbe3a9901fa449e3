/// The rules a set of handlers must keep: names a categories file can spell, one owner for
/// every stream kind, input type and report view, settings whose defaults are valid.
enum HandlerSetValidator {
    /// The report views of docs/contract.md, "Reports" that are not a handler's.
    static let coreReports: Set<String> = ["report_queue", "report_throughput", "report_latency", "report_outcomes",
                                           "report_dead_letters", "report_stash", "report_trail"]
    static let contractInputs: Set<EventType> = Set(EventType.actiondTypes)

    static func problems(in handlers: [any AnyCategoryHandler]) -> [String] {
        var problems: [String] = []
        var names: Set<String> = []
        var kinds: [String: String] = [StreamKey.notificationKind: "actiond", StreamKey.protectedDataKind: "actiond"]
        var inputs: [EventType: String] = [:]
        var views: [String: String] = [:]
        for handler in handlers {
            let name = handler.name
            let label = "handler \(name.debugDescription)"
            if !isIdentifier(name) { problems.append("\(label): a name is lowercase letters, digits and _, starting with a letter (at most 63)") }
            if !names.insert(name).inserted { problems.append("\(label) is given twice") }
            for kind in [handler.stateKind] + (handler.sharedKind.map { [$0] } ?? []) {
                if !isIdentifier(kind) { problems.append("\(label): stream kind \(kind.debugDescription) must be lowercase letters, digits and _") }
                if let owner = kinds[kind] { problems.append("\(label): stream kind \(kind) is already \(owner)'s") }
                kinds[kind] = kinds[kind] ?? name
            }
            var keys: Set<ExactString> = []  // byte for byte, as PostgreSQL reads the payload's keys
            for key in handler.requiredPayloadKeys {
                if key.isEmpty || key.isExactly("aps") || !keys.insert(ExactString(key)).inserted {
                    problems.append("\(label): required payload key \(key.debugDescription) is empty, aps, or listed twice")
                }
            }
            var settings: Set<String> = []
            for setting in handler.settingDeclarations {
                if !isIdentifier(setting.name) || !settings.insert(setting.name).inserted {
                    problems.append("\(label): setting \(setting.name.debugDescription) must be a unique name of lowercase letters, digits and _")
                }
                if !(setting.minimum...max(setting.minimum, setting.maximum)).contains(setting.defaultValue) || setting.maximum < setting.minimum {
                    problems.append("\(label): setting \(setting.name) has default \(setting.defaultValue) outside \(setting.minimum)...\(setting.maximum)")
                }
            }
            for (type, field) in handler.sharedInputs.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                if contractInputs.contains(type) {
                    problems.append("\(label): \(type.rawValue) is routed by actiond itself and cannot be a shared input")
                } else if !EventType.isTeamInputName(type.rawValue) {
                    problems.append("\(label): input type \(type.rawValue.debugDescription) must be a namespace and a name of lowercase letters, digits and _ joined by dots (such as parcel.delivered), at most 64 bytes")
                }
                if !isKey(field) { problems.append("\(label): shared input \(type.rawValue) names data field \(field.debugDescription); a field is letters, digits and _") }
                if handler.sharedKind == nil { problems.append("\(label): shared input \(type.rawValue) needs a Shared state type") }
                var required: Set<String> = [field]
                for key in handler.inputRequiredKeys[type] ?? [] where !isKey(key) || !required.insert(key).inserted {
                    problems.append("\(label): input \(type.rawValue) requires field \(key.debugDescription); a field is letters, digits and _, listed once")
                }
                if let owner = inputs[type] { problems.append("\(label): \(type.rawValue) is already handled by \(owner)") }
                inputs[type] = inputs[type] ?? name
            }
            for type in handler.inputRequiredKeys.keys.sorted(by: { $0.rawValue < $1.rawValue }) where handler.sharedInputs[type] == nil {
                problems.append("\(label): inputRequiredKeys names \(type.rawValue), which is not one of its sharedInputs")
            }
            if let view = handler.reportView {
                problems += viewProblems(view, label: label, shared: handler.sharedKind != nil)
                if let owner = views[view.name] { problems.append("\(label): report view \(view.name) is already \(owner)'s") }
                views[view.name] = views[view.name] ?? name
            }
        }
        return problems
    }

    private static func viewProblems(_ view: ReportView, label: String, shared: Bool) -> [String] {
        var problems: [String] = []
        if !view.name.hasPrefix("report_") || !isIdentifier(view.name) {
            problems.append("\(label): report view \(view.name.debugDescription) must be report_ followed by lowercase letters, digits and _")
        }
        if coreReports.contains(view.name) { problems.append("\(label): \(view.name) is one of actiond's own reports") }
        if !shared && !view.sharedColumns.isEmpty { problems.append("\(label): report view \(view.name) has shared columns but the handler keeps no shared state") }
        var columns: Set<String> = []
        for column in [ReportColumn(view.idColumn, .text), ReportColumn("user_id", .text)] + view.columns + view.sharedColumns {
            if !isIdentifier(column.name) || !columns.insert(column.name).inserted {
                problems.append("\(label): report view \(view.name) column \(column.name.debugDescription) must be a unique name of lowercase letters, digits and _")
            }
            if !isKey(column.key) { problems.append("\(label): report view \(view.name) column \(column.name) reads key \(column.key.debugDescription); a key is letters, digits and _") }
        }
        return problems
    }

    /// Lowercase ASCII letters, digits and `_`, starting with a letter, 1 to 63 bytes: safe as
    /// a SQL identifier without quoting, and as a name in a categories file.
    static func isIdentifier(_ text: String) -> Bool { ReasonCode.isValid(text) }

    private static func isKey(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...63).contains(bytes.count) else { return false }
        return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }
}

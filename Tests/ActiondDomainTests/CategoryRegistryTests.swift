import ActiondBuiltInHandlers
import ActiondDomain
import Foundation
import Testing

@Suite("Category registry")
struct CategoryRegistryTests {
    /// A valid file to break one rule at a time.
    static let valid = """
        {"categories": [
          {"identifier": "MEETING_INVITATION", "options": ["customDismissAction"], "handler": "meeting_invitation",
           "actions": [{"identifier": "ACCEPT_ACTION", "title": "Accept", "options": ["authenticationRequired"]},
                       {"identifier": "DECLINE_ACTION", "title": "Decline", "options": ["destructive"]}]},
          {"identifier": "MESSAGE", "handler": "message_thread",
           "actions": [{"identifier": "REPLY_ACTION", "title": "Reply", "textInput": {"buttonTitle": "Send", "placeholder": "Reply"}}]},
          {"identifier": "TIMER_EXPIRED", "handler": "timer", "settings": {"snooze_seconds": 60},
           "actions": [{"identifier": "SNOOZE_ACTION", "title": "Snooze"}]}
        ]}
        """

    func problems(_ json: String) -> [CategoryProblem] {
        do {
            _ = try CategoryRegistry.parse(Data(json.utf8))
            return []
        } catch {
            return error.problems
        }
    }

    @Test func theShippedDefaultFileIsValid() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../categories/default.json")
        let registry = try CategoryRegistry.parse(try Data(contentsOf: url))
        #expect(registry.categories.map(\.identifier) == ["MEETING_INVITATION", "TIMER_EXPIRED", "MESSAGE", "GENERAL"])
        let meeting = try #require(registry.category("MEETING_INVITATION"))
        #expect(meeting.deliversDismiss)
        #expect(meeting.action("ACCEPT_ACTION")?.requiresAuthentication == true)
        #expect(registry.requiredPayloadKeys["MEETING_INVITATION"] == ["MEETING_ID"])
        let timer = try #require(registry.category("TIMER_EXPIRED"))
        #expect(timer.settings == ["snooze_seconds": 540, "max_snoozes": 10])
        #expect(timer.action("STOP_ACTION")?.options == [.foreground])
        let message = try #require(registry.category("MESSAGE"))
        #expect(registry.requiredPayloadKeys["MESSAGE"] == ["THREAD_ID", "MESSAGE_ID"])
        #expect(message.action("REPLY_ACTION")?.textInput == TextInput(buttonTitle: "Send", placeholder: "Type your reply"))
        let general = try #require(registry.category("GENERAL"))
        #expect(general.handler == nil && general.actions.isEmpty && general.deliversDismiss)
        #expect(registry.notes.isEmpty)
    }

    @Test func aValidFileHasNoProblems() throws {
        let registry = try CategoryRegistry.parse(Data(Self.valid.utf8))
        #expect(registry.category("TIMER_EXPIRED")?.settings == ["snooze_seconds": 60, "max_snoozes": 10], "defaults fill unset settings")
    }

    /// One broken rule each: the replacement applied to the valid file, the path and rule expected.
    static let cases: [(String, String, String, CategoryProblem.Rule)] = [
        (#""identifier": "MESSAGE""#, #""identifier": """#, "$.categories[1].identifier", .empty),
        (#""identifier": "MESSAGE""#, #""identifier": "MEETING_INVITATION""#, "$.categories[1].identifier", .duplicateCategory),
        (#""identifier": "REPLY_ACTION""#, #""identifier": "ACCEPT_ACTION""#, "$.categories[1].actions[0].identifier", .duplicateAction),
        (#""identifier": "REPLY_ACTION""#, #""identifier": "com.apple.UNNotificationDefaultActionIdentifier""#, "$.categories[1].actions[0].identifier", .reservedIdentifier),
        (#""identifier": "REPLY_ACTION""#, #""identifier": "com.apple.UNNotificationDismissActionIdentifier""#, "$.categories[1].actions[0].identifier", .reservedIdentifier),
        (#""identifier": "SNOOZE_ACTION""#, #""identifier": """#, "$.categories[2].actions[0].identifier", .empty),
        (#""title": "Decline""#, #""title": """#, "$.categories[0].actions[1].title", .empty),
        (#""options": ["destructive"]"#, #""options": ["destructive", "bold"]"#, "$.categories[0].actions[1].options[1]", .unknownOption),
        (#""options": ["destructive"]"#, #""options": ["destructive", "destructive"]"#, "$.categories[0].actions[1].options[1]", .duplicateOption),
        (#""options": ["customDismissAction"]"#, #""options": ["customDismiss"]"#, "$.categories[0].options[0]", .unknownOption),
        (#""options": ["customDismissAction"]"#, #""options": ["authenticationRequired"]"#, "$.categories[0].options[0]", .unknownOption),
        (#""buttonTitle": "Send", "#, #""buttonTitle": "", "#, "$.categories[1].actions[0].textInput.buttonTitle", .empty),
        (#""buttonTitle": "Send", "#, "", "$.categories[1].actions[0].textInput.buttonTitle", .required),
        (#""handler": "timer""#, #""handler": "alarm""#, "$.categories[2].handler", .unknownHandler),
        (#""snooze_seconds": 60"#, #""snooze_seconds": 0"#, "$.categories[2].settings.snooze_seconds", .invalidSetting),
        (#""snooze_seconds": 60"#, #""snooze_seconds": "60""#, "$.categories[2].settings.snooze_seconds", .type),
        (#""snooze_seconds": 60"#, #""snooze_minutes": 1"#, "$.categories[2].settings.snooze_minutes", .unknownSetting),
        (#""title": "Snooze""#, #""title": "Snooze", "titel": "x""#, "$.categories[2].actions[0].titel", .unknownField),
        (#""title": "Snooze""#, #""title": 5"#, "$.categories[2].actions[0].title", .type),
        (#""title": "Snooze""#, #""options": []"#, "$.categories[2].actions[0].title", .required),
        (#"{"categories": ["#, #"{"categories": [5, "#, "$.categories[0]", .type),
    ]

    @Test(arguments: cases.indices)
    func eachRuleRefusesABadFileAtItsPath(_ index: Int) {
        let (original, replacement, path, rule) = Self.cases[index]
        #expect(Self.valid.contains(original), "the case must change the file")
        let found = problems(Self.valid.replacingOccurrences(of: original, with: replacement))
        #expect(found.contains { $0.path.description == path && $0.rule == rule }, "expected \(rule) at \(path), got \(found)")
        #expect(found.count == 1, "only the broken rule is reported: \(found)")
    }

    @Test func moreThanFourActionsIsRefused() {
        let actions = (1...5).map { #"{"identifier": "A\#($0)", "title": "T"}"# }.joined(separator: ",")
        let found = problems(#"{"categories": [{"identifier": "C", "actions": [\#(actions)]}]}"#)
        #expect(found.map(\.rule) == [.tooManyActions])
        #expect(found.first?.path.description == "$.categories[0].actions")
        #expect(found.first?.message.contains("banners show only the first 2") == true)
    }

    @Test func threeOrFourActionsAreAcceptedWithANoteAboutBanners() throws {
        let actions = (1...3).map { #"{"identifier": "A\#($0)", "title": "T"}"# }.joined(separator: ",")
        let registry = try CategoryRegistry.parse(Data(#"{"categories": [{"identifier": "C", "actions": [\#(actions)]}]}"#.utf8))
        #expect(registry.notes == ["C has 3 actions; banners show only the first 2"])
    }

    @Test func identifiersAreCaseSensitive() throws {
        let registry = try CategoryRegistry.parse(Data(#"""
            {"categories": [{"identifier": "message", "actions": [{"identifier": "reply", "title": "r"}]},
                            {"identifier": "MESSAGE", "actions": [{"identifier": "REPLY", "title": "R"}]}]}
            """#.utf8))
        #expect(registry.categories.count == 2)
        #expect(registry.category("Message") == nil)
    }

    @Test func everyProblemIsReportedAtOnceInDocumentOrder() {
        let found = problems(#"""
            {"categories": [
              {"identifier": "", "options": ["loud"], "actions": [{"identifier": "X", "title": ""}]},
              {"identifier": "B", "handler": "nope", "actions": [{"identifier": "X", "title": "t", "textInput": {}}]},
              {"identifier": "B", "actions": [{"identifier": "com.apple.UNNotificationDefaultActionIdentifier", "title": "t"}]}
            ], "extra": true}
            """#)
        let described = found.map { "\($0.path) \($0.rule.rawValue)" }
        #expect(described == [
            "$.categories[0].actions[0].title empty",
            "$.categories[0].identifier empty",
            "$.categories[0].options[0] unknown_option",
            "$.categories[1].actions[0].identifier duplicate_action",
            "$.categories[1].actions[0].textInput.buttonTitle required",
            "$.categories[1].handler unknown_handler",
            "$.categories[2].actions[0].identifier reserved_identifier",
            "$.categories[2].identifier duplicate_category",
            "$.extra unknown_field",
        ])
    }

    @Test func notJSONAndTheWrongShapeAreProblemsToo() {
        #expect(problems("{").map(\.rule) == [.invalidJSON])
        #expect(problems("[]").map { "\($0.path) \($0.rule)" } == ["$ type"])
        #expect(problems("{}").map { "\($0.path) \($0.rule)" } == ["$.categories required"])
        #expect(problems(#"{"categories": []}"#).map { "\($0.path) \($0.rule)" } == ["$.categories empty"])
    }

    @Test func theErrorDescriptionListsEveryProblem() {
        do {
            _ = try CategoryRegistry.parse(Data(#"{"categories": [{"identifier": "", "actions": [{"identifier": "", "title": "t"}]}]}"#.utf8))
            Issue.record("expected the file to be refused")
        } catch {
            #expect(error.description.hasPrefix("categories file refused, nothing stored (2 problems):"))
            #expect(error.description.contains("$.categories[0].identifier: identifier must not be empty [empty]"))
            #expect(error.description.contains("$.categories[0].actions[0].identifier: identifier must not be empty [empty]"))
        }
    }

    @Test func theCanonicalDocumentParsesBackToTheSameRegistry() throws {
        let registry = try CategoryRegistry.parse(Data(Self.valid.utf8))
        #expect(try CategoryRegistry.parse(registry.canonicalJSON()) == registry)
    }
}

import ActiondDomain
import Testing

/// Which fields of an input event are protected text, and that each is sealed whatever its
/// JSON type (`ProtectedFields`): a protecting category's alert title, subtitle and body and
/// its localized argument lists, with elements of every type, and an alert that is neither a
/// string nor an object. Opening gives the same value back.
@Suite("Protected fields")
struct ProtectedFieldsTests {
    /// Seals by writing the field and the text in a form the test can read back; opens it.
    static func crypt(forgotten: Bool = false) -> ProtectedFields.Crypt {
        ProtectedFields.Crypt(
            open: { sealed, field in
                let prefix = "at-rest(\(field)):"
                guard sealed.hasPrefix(prefix) else { throw SealedTextUnreadable(reason: "not this field's") }
                return ProtectedText(String(sealed.dropFirst(prefix.count)))
            },
            seal: { clear, field in "at-rest(\(field)):" + clear },
            isAtRest: { $0.hasPrefix("at-rest(") },
            forgotten: forgotten)
    }

    static func sent(_ alert: String, category: String = "MESSAGE") throws -> JSONValue {
        try JSONValue(parsing: #"{"request_id":"r","payload":{"aps":{"category":"\#(category)","alert":\#(alert)},"THREAD_ID":"t","MESSAGE_ID":"m"}}"#)
    }

    static func alert(_ data: JSONValue) -> [String: JSONValue] {
        guard case .object(let alert)? = data["payload"]?["aps"]?["alert"] else { return [:] }
        return alert
    }

    /// Every string anywhere in `value` (keys excluded).
    static func strings(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings)
        case .object(let members): members.values.flatMap(strings)
        default: []
        }
    }

    @Test func everyAlertFieldOfAProtectingCategoryIsSealedWhateverItsJSONType() throws {
        let original = try Self.sent(#"""
            {"title":7,"subtitle":{"who":"Ana"},"body":true,
             "loc-args":["Ana","meet at 5",2],"title-loc-args":[true,null,{"x":"y"},[1.5]],"subtitle-loc-args":"not a list",
             "loc-key":"MSG_FORMAT","launch-image":"x.png"}
            """#)
        let prepared = try ProtectedFields.prepare(original, type: .notificationSent, protectsAlert: true, crypt: Self.crypt())
        let stored = try #require(prepared.stored, "rewritten at rest")
        let storedAlert = Self.alert(stored)
        for name in ProtectedFields.alertFields + ProtectedFields.alertArgumentFields {
            #expect(storedAlert[name] == nil, "\(name) is not kept in clear")
            let sealed = try #require(storedAlert[name + ProtectedFields.sealedSuffix]?.stringValue, "\(name) is sealed")
            #expect(sealed.hasPrefix("at-rest(payload.aps.alert.\(name)):"), "\(sealed)")
        }
        // Not text: left as they are.
        #expect(storedAlert["loc-key"] == .string("MSG_FORMAT") && storedAlert["launch-image"] == .string("x.png"))
        #expect(!Self.strings(stored).filter { !$0.hasPrefix("at-rest(") }.contains { $0.contains("meet at 5") || $0 == "Ana" || $0 == "y" })
        // Non-string values are sealed as their JSON text (the argument lists always so; the
        // other fields after a U+0000), and the handler gets each value back as it came.
        #expect(storedAlert["loc-args_sealed"] == .string(#"at-rest(payload.aps.alert.loc-args):["Ana","meet at 5",2]"#))
        #expect(storedAlert["title_sealed"] == .string("at-rest(payload.aps.alert.title):\u{0}7"))
        #expect(prepared.memory == original)

        // Read again from the log: the same values, nothing more to rewrite.
        let reread = try ProtectedFields.prepare(stored, type: .notificationSent, protectsAlert: true, crypt: Self.crypt())
        #expect(reread.stored == nil)
        #expect(reread.memory == original)
    }

    @Test func anAlertThatIsNeitherAStringNorAnObjectIsSealedWhole() throws {
        for alert in [#"["Ana","meet at 5",2]"#, "42", "false", #""meet at 5""#] {
            let original = try Self.sent(alert)
            let prepared = try ProtectedFields.prepare(original, type: .notificationSent, protectsAlert: true, crypt: Self.crypt())
            let stored = try #require(prepared.stored, "\(alert)")
            #expect(stored["payload"]?["aps"]?["alert"] == nil, "\(alert)")
            #expect(stored["payload"]?["aps"]?["alert_sealed"]?.stringValue?.hasPrefix("at-rest(payload.aps.alert):") == true, "\(alert)")
            #expect(prepared.memory == original, "\(alert)")
            #expect(try ProtectedFields.prepare(stored, type: .notificationSent, protectsAlert: true, crypt: Self.crypt()).memory == original)
        }
        // null carries no text.
        let none = try Self.sent("null")
        #expect(try ProtectedFields.prepare(none, type: .notificationSent, protectsAlert: true, crypt: Self.crypt()).stored == nil)
    }

    @Test func aCategoryThatDoesNotProtectItsAlertKeepsItAsItIs() throws {
        let original = try Self.sent(#"{"title":"Ana","body":"meet at 5","loc-args":["Ana",2]}"#, category: "GENERAL")
        let prepared = try ProtectedFields.prepare(original, type: .notificationSent, protectsAlert: false, crypt: Self.crypt())
        #expect(prepared.stored == nil && prepared.memory == original)
    }

    @Test func aForgottenPersonsFieldsAreStoredAsForgottenWhateverTheirType() throws {
        let original = try Self.sent(#"{"title":7,"body":"meet at 5","loc-args":["Ana",2],"title-loc-args":[false]}"#)
        let prepared = try ProtectedFields.prepare(original, type: .notificationSent, protectsAlert: true, crypt: Self.crypt(forgotten: true))
        let storedAlert = Self.alert(try #require(prepared.stored))
        for name in ["title", "body", "loc-args", "title-loc-args"] {
            #expect(storedAlert[name] == nil && storedAlert[name + ProtectedFields.sealedSuffix] == nil, "\(name)")
            #expect(storedAlert[name + ProtectedFields.forgottenSuffix] == .bool(true), "\(name)")
        }
    }

    /// The two forms: what `clearText` gives is what is sealed (by a worker, or by a producer
    /// in another language), and `value(ofOpened:)` reads it back.
    @Test func theSealedFormOfEachValueAndBack() throws {
        let cases: [(name: String, value: String, text: String)] = [
            ("body", #""meet at 5""#, "meet at 5"),
            ("body", #""[1,2]""#, "[1,2]"),               // a string that looks like JSON stays a string
            ("body", "12", "\u{0}12"),
            ("title", #"{"b":[true,null],"a":"x"}"#, "\u{0}" + #"{"a":"x","b":[true,null]}"#),
            ("alert", "[\"Ana\",2]", "\u{0}[\"Ana\",2]"),
            ("loc-args", #"["Ana","meet at 5",2]"#, #"["Ana","meet at 5",2]"#),
            ("title-loc-args", #"[{"k":1},null]"#, #"[{"k":1},null]"#),
            ("subtitle-loc-args", #""one""#, #""one""#),
        ]
        for (name, value, text) in cases {
            let parsed = try JSONValue(parsing: value)
            #expect(try ProtectedFields.clearText(parsed, of: name) == text, "\(name) \(value)")
            #expect(try ProtectedFields.value(ofOpened: text, of: name) == parsed, "\(name) \(value)")
        }
        #expect(try ProtectedFields.clearText(nil, of: "body") == nil)
        #expect(try ProtectedFields.clearText(.null, of: "loc-args") == nil)
        #expect(try ProtectedFields.clearText(try JSONValue(parsing: #"{"body":"x"}"#), of: "alert") == nil, "an alert object's fields are sealed one by one")
        #expect(throws: JSONTextError.self) { try ProtectedFields.value(ofOpened: "\u{0}not json", of: "body") }
    }

    @Test func holdsClearTextReadsEveryTypeAndTheCategory() {
        let message = #"{"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":{"title_sealed":"at-rest(x)","loc-args":["a",2]}}}}"#
        #expect(ProtectedFields.holdsTextNotAtRest(message, type: .notificationSent, isAtRest: { $0.hasPrefix("at-rest(") }))
        #expect(!ProtectedFields.holdsTextNotAtRest(message, type: .notificationSent, protectsAlert: false, isAtRest: { $0.hasPrefix("at-rest(") }),
                "a category that does not protect its alert: clear arguments are not protected text")
        let intake = #"{"request_id":"r","payload":{"aps":{"category":"GENERAL","alert":{"body_sealed":"hpke1.k.e.c"}}}}"#
        #expect(ProtectedFields.holdsTextNotAtRest(intake, type: .notificationSent, protectsAlert: false, isAtRest: { $0.hasPrefix("at-rest(") }),
                "sealed to the intake key is not at rest, whatever the category")
        let number = #"{"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":5}}}"#
        #expect(ProtectedFields.holdsTextNotAtRest(number, type: .notificationSent, isAtRest: { _ in true }))
    }
}

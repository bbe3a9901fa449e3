import ActiondDomain
import Foundation

/// Seals an event's protected fields to the intake public key before it leaves the producer
/// (what `actiond submit` does to every line): `data.text` becomes `data.text_sealed`, and a
/// notification's alert (for categories whose handler protects it) `alert_sealed` or
/// `title_sealed`, `subtitle_sealed`, `body_sealed` and the localized alert arguments'
/// `loc-args_sealed`, …, whatever their JSON type (`ProtectedFields.clearText`).
/// Every line is parsed, as a worker parses it: a key is found whatever its spelling
/// (`"te\u0078t"` is `text`), never by searching the line's text. A line that cannot be read
/// is refused here (`Refusal`), never sent as it is: it may hold protected text that would
/// reach PostgreSQL in clear. Anything else is left for `actiond.submit` to judge.
package struct EnvelopeSealer: Sendable {
    /// A line refused before it was sent: it may hold protected text and cannot be sealed.
    /// The message names the field or the rule, never the line's content.
    package struct Refusal: Error, CustomStringConvertible {
        /// Which rule the line breaks; `actiond submit` reports it under the SQLSTATE
        /// `actiond.submit` gives the same problem (this module knows no SQL).
        package enum Rule: Sendable, Hashable {
            /// Malformed: a field in clear and sealed, a text that is not a string, nesting
            /// too deep (`invalid_parameter_value`).
            case malformed
            /// Text holding U+0000 (`untranslatable_character`).
            case nulCharacter
            /// A number beyond the range of a double (`numeric_value_out_of_range`).
            case numberOutOfRange
            /// Not JSON (`invalid_text_representation`).
            case notJSON
        }

        package var rule: Rule
        package var description: String
    }

    let key: IntakePublicKey
    /// Whether notifications of a category carry protected alert text.
    let protectsAlert: @Sendable (String) -> Bool

    package init(key: IntakePublicKey, protectsAlert: @escaping @Sendable (String) -> Bool) {
        self.key = key
        self.protectsAlert = protectsAlert
    }

    /// `line` with its protected fields sealed; `line` itself when it has none.
    package func seal(_ line: String) throws -> String {
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: line)
        } catch {
            throw Self.unreadable(error as? JSONTextError)
        }
        guard case .object(var event) = parsed,
              let user = event["user_id"]?.stringValue, let id = event["id"]?.stringValue,
              case .object(var data)? = event["data"] else { return line }
        var changed = false
        func seal(_ object: inout [String: JSONValue], _ name: String, path: String) throws {
            let sealedName = name + ProtectedFields.sealedSuffix
            guard let clear = try ProtectedFields.clearText(object[name], of: name) else { return }
            if let sealed = object[sealedName], sealed != .null {
                throw Refusal(rule: .malformed, description: "data.\(path)\(ProtectedFields.sealedSuffix): give the field in clear (\(name)) or sealed (\(sealedName)), not both; refused here, nothing sent")
            }
            if case .string(let text)? = object[name], text.unicodeScalars.contains("\u{0}") {
                throw Refusal(rule: .nulCharacter, description: "data.\(path): holds U+0000, which PostgreSQL cannot store; refused here, nothing sent")
            }
            object[name] = nil
            object[sealedName] = .string(try key.seal(clear, userID: user, eventID: id, field: path))
            changed = true
        }
        switch event["type"]?.stringValue {
        case "notification.response":
            // A response's text is a string (submit's rule): said here, as submit would say it,
            // rather than sealed where submit could no longer see its type.
            if let text = data["text"], text != .null, text.stringValue == nil {
                throw Refusal(rule: .malformed, description: "data.text: must be a string, got \(Self.typeName(text))")
            }
            try seal(&data, "text", path: "text")
        case "notification.sent":
            guard case .object(var payload)? = data["payload"], case .object(var aps)? = payload["aps"],
                  let category = aps["category"]?.stringValue, protectsAlert(category) else { break }
            try seal(&aps, "alert", path: "payload.aps.alert")
            if case .object(var alert)? = aps["alert"] {
                for name in ProtectedFields.alertFields + ProtectedFields.alertArgumentFields {
                    try seal(&alert, name, path: "payload.aps.alert." + name)
                }
                aps["alert"] = .object(alert)
            }
            payload["aps"] = .object(aps)
            data["payload"] = .object(payload)
        default:
            break
        }
        guard changed else { return line }
        event["data"] = .object(data)
        return try DomainCoding.encode(JSONValue.object(event))
    }

    /// A value's JSON type, as PostgreSQL's jsonb_typeof names it.
    private static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// A line the worker's parser cannot read, refused as `actiond.submit` refuses it (its code,
    /// and for what is JSON to PostgreSQL its message): not JSON, a number beyond a double,
    /// nesting too deep.
    private static func unreadable(_ error: JSONTextError?) -> Refusal {
        let reason = error?.description ?? "not JSON"
        if error?.reason.contains("out of range") == true {
            return Refusal(rule: .numberOutOfRange, description: "data: holds a number beyond the range of a double (magnitude at most 1.7976931348623157e308), which workers cannot read; refused here, nothing sent")
        }
        if error?.reason.hasPrefix("nested more than") == true {
            return Refusal(rule: .malformed, description: "data: is nested more than 512 deep (counting the event itself), which workers cannot read; refused here, nothing sent")
        }
        return Refusal(rule: .notJSON, description: "event: not valid JSON (\(reason)), so its protected text cannot be sealed: refused here, nothing sent")
    }
}

import ActiondDomain
import Foundation

/// Seals an event's protected fields to the intake public key before it leaves the producer
/// (what `actiond submit` does to every line): `data.text` becomes `data.text_sealed`, and a
/// notification's alert (for categories whose handler protects it) `alert_sealed` or
/// `title_sealed`, `subtitle_sealed`, `body_sealed` (and the localized alert arguments).
/// A line that may hold protected text but cannot be read is refused here (`Refusal`), never
/// sent as it is: its text would reach PostgreSQL in clear. Anything else is left for
/// `actiond.submit` to judge.
package struct EnvelopeSealer: Sendable {
    /// A line refused before it was sent: it may hold protected text and cannot be sealed.
    /// The message names the rule, never the line's content.
    package struct Refusal: Error, CustomStringConvertible {
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
        guard line.contains("\"text\"") || line.contains("\"alert\"") else { return line }
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: line)
        } catch {
            let reason = (error as? JSONTextError)?.reason ?? "not JSON"
            throw Refusal(description: "the line cannot be read as JSON a worker accepts (\(reason)), so its protected text cannot be sealed: refused here, nothing sent")
        }
        guard case .object(var event) = parsed,
              let user = event["user_id"]?.stringValue, let id = event["id"]?.stringValue,
              case .object(var data)? = event["data"] else { return line }
        var changed = false
        func seal(_ object: inout [String: JSONValue], _ name: String, path: String) throws {
            guard let clear = try ProtectedFields.clearText(object[name], isArguments: ProtectedFields.alertArgumentFields.contains(name)),
                  object[name + ProtectedFields.sealedSuffix] == nil else { return }
            object[name] = nil
            object[name + ProtectedFields.sealedSuffix] = .string(try key.seal(clear, userID: user, eventID: id, field: path))
            changed = true
        }
        switch event["type"]?.stringValue {
        case "notification.response":
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
}

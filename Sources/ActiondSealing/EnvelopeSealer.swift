import ActiondDomain
import Foundation

/// Seals an event's protected fields to the intake public key before it leaves the producer
/// (what `actiond submit` does to every line): `data.text` becomes `data.text_sealed`, and a
/// notification's alert (for categories whose handler protects it) `alert_sealed` or
/// `title_sealed`, `subtitle_sealed`, `body_sealed`. Anything else, and a line that is not an
/// event it understands, is left as it is for `actiond.submit` to judge.
package struct EnvelopeSealer: Sendable {
    let key: IntakePublicKey
    /// Whether notifications of a category carry protected alert text.
    let protectsAlert: @Sendable (String) -> Bool

    package init(key: IntakePublicKey, protectsAlert: @escaping @Sendable (String) -> Bool) {
        self.key = key
        self.protectsAlert = protectsAlert
    }

    /// `line` with its protected fields sealed; `line` itself when it has none.
    package func seal(_ line: String) throws -> String {
        guard line.contains("\"text\"") || line.contains("\"alert\""),
              case .object(var event)? = try? DomainCoding.decode(JSONValue.self, from: line),
              let user = event["user_id"]?.stringValue, let id = event["id"]?.stringValue,
              case .object(var data)? = event["data"] else { return line }
        var changed = false
        func seal(_ object: inout [String: JSONValue], _ name: String, path: String) throws {
            guard case .string(let clear)? = object[name], object[name + ProtectedFields.sealedSuffix] == nil else { return }
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
                for name in ProtectedFields.alertFields { try seal(&alert, name, path: "payload.aps.alert." + name) }
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

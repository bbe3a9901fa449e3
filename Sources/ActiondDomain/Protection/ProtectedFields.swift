import Foundation

/// The protected fields of an input event's `data`, and their three forms:
///
/// - in clear: `"text": "…"` (what plain SQL submit stores until a worker takes the event);
/// - sealed: `"text_sealed": "…"`, either to the intake public key (`hpke1.…`, what
///   `actiond submit` and other producers send) or at rest under the user's data key
///   (`aead1.…`, what a worker writes back);
/// - forgotten, in memory only: `"text_forgotten": true` (the user's key was destroyed);
/// - unreadable, in memory only: `"text_unreadable": true` (intake-sealed text that does not
///   open: bad input, rejected invalid_text).
///
/// Protected fields: a response's `text`; for a category whose handler `protectsAlert`, the
/// notification's `payload.aps.alert` (when it is not an object) or its `title`, `subtitle`
/// and `body`, and its localized arguments (`loc-args`, `title-loc-args`,
/// `subtitle-loc-args`). Each is protected whatever its JSON type (`clearText`): a string is
/// sealed as itself; any other value as its JSON text, the argument lists always so (whatever
/// their elements), the other fields marked by a leading U+0000; opening gives the value back.
/// A field arriving sealed is opened whatever its category: a producer may seal more.
package enum ProtectedFields {
    package static let sealedSuffix = "_sealed"
    package static let forgottenSuffix = "_forgotten"
    /// In memory only: a field a producer sealed to the intake key that does not open (sealed
    /// for another event, user or field, to a key actiond does not hold, or garbage). Bad
    /// input: its event is rejected invalid_text, never retried.
    package static let unreadableSuffix = "_unreadable"
    package static let alertFields = ["title", "subtitle", "body"]
    /// The localized alert's arguments (arrays the app formats into its text): protected like
    /// the text itself, sealed as their JSON text whatever the type of each element.
    package static let alertArgumentFields = ["loc-args", "title-loc-args", "subtitle-loc-args"]
    /// What the sealed text of a field other than an argument list starts with when the value
    /// was not a string: U+0000, then the value's JSON text. No string PostgreSQL stores can
    /// hold U+0000 (jsonb and text refuse it), so a person's text never starts with it.
    package static let jsonValueMark = "\u{0}"

    /// What the worker does with one field.
    package struct Crypt {
        /// Opens a sealed value of `field` (dotted path): intake or at-rest form.
        package var open: (_ sealed: String, _ field: String) throws -> ProtectedText
        /// Seals clear text of `field` at rest; nil: leave it as it is (sealing switched off).
        package var seal: ((_ clear: String, _ field: String) throws -> String)?
        /// Whether a sealed value is already in its at-rest form.
        package var isAtRest: (_ sealed: String) -> Bool
        /// The user was forgotten: every protected field reads as forgotten and is stored so.
        package var forgotten: Bool

        package init(open: @escaping (String, String) throws -> ProtectedText, seal: ((String, String) throws -> String)?,
                     isAtRest: @escaping (String) -> Bool, forgotten: Bool = false) {
            self.open = open
            self.seal = seal
            self.isAtRest = isAtRest
            self.forgotten = forgotten
        }
    }

    /// The data in memory (clear or forgotten, for the handler) and, when it differs from what
    /// the log holds, the data as it must be stored from now on (at rest, never clear).
    package struct Prepared {
        package var memory: JSONValue
        package var stored: JSONValue?
    }

    /// Whether `data` (JSON text) may hold a protected field: a cheap test before parsing.
    package static func mayHold(_ data: String, type: EventType) -> Bool {
        switch type {
        case .notificationResponse: UTF8Bytes.contains(data, "\"text")
        case .notificationSent: UTF8Bytes.contains(data, "\"alert")
        default: false
        }
    }

    /// Whether `data` (JSON text) holds a protected field that is not sealed at rest: in
    /// clear, or sealed in a form `isAtRest` (`Crypt.isAtRest`'s test) says is not the one a
    /// worker writes, at the paths where protected fields live (a response's `text`; a
    /// notification's `payload.aps.alert`, its title, subtitle and body and their localized
    /// arguments). Data that does not parse counts as holding such a field. Read from the
    /// parsed fields, not by searching the text: a person's text may contain `"aead` or a
    /// `_sealed` key name.
    /// `protectsAlert` false (a category that does not protect its alert): an alert in clear
    /// does not count, an alert field sealed to the intake key still does.
    package static func holdsTextNotAtRest(_ data: String, type: EventType, protectsAlert: Bool = true, isAtRest: (String) -> Bool) -> Bool {
        guard case .object(let fields)? = try? JSONValue(parsing: data) else { return true }
        /// A sealed value that is not in the at-rest form (a string `isAtRest` refuses, or no string).
        func sealedNotAtRest(_ value: JSONValue?) -> Bool {
            guard let value, value != .null else { return false }
            guard case .string(let text) = value else { return true }
            return !isAtRest(text)
        }
        /// One of `names` present in clear (any value), or sealed but not at rest.
        func notAtRest(_ members: [String: JSONValue], _ names: [String], clearCounts: Bool = true) -> Bool {
            names.contains { name in
                if clearCounts, let value = members[name], value != .null { return true }
                return sealedNotAtRest(members[name + sealedSuffix])
            }
        }
        switch type {
        case .notificationResponse:
            return notAtRest(fields, ["text"])
        case .notificationSent:
            guard case .object(let aps)? = fields["payload"]?["aps"] else { return false }
            // An alert object holds its text in its title, subtitle, body and arguments.
            if case .object(let alert)? = aps["alert"] {
                return notAtRest(alert, alertFields + alertArgumentFields, clearCounts: protectsAlert) || sealedNotAtRest(aps["alert" + sealedSuffix])
            }
            return notAtRest(aps, ["alert"], clearCounts: protectsAlert)
        default:
            return false
        }
    }

    /// Reads and rewrites the protected fields of `data`.
    package static func prepare(_ data: JSONValue, type: EventType, protectsAlert: Bool, crypt: Crypt) throws -> Prepared {
        guard case .object(var object) = data else { return Prepared(memory: data, stored: nil) }
        var stored = object
        var changed = false
        switch type {
        case .notificationResponse:
            try field("text", path: "text", memory: &object, stored: &stored, protected: true, crypt: crypt, changed: &changed)
        case .notificationSent:
            guard case .object(var payload)? = object["payload"], case .object(var aps)? = payload["aps"] else { break }
            guard case .object(var storedPayload)? = stored["payload"], case .object(var storedAps)? = storedPayload["aps"] else { break }
            try field("alert", path: "payload.aps.alert", memory: &aps, stored: &storedAps, protected: protectsAlert, crypt: crypt, changed: &changed)
            if case .object(var alert)? = aps["alert"], case .object(var storedAlert)? = storedAps["alert"] {
                for name in alertFields + alertArgumentFields {
                    try field(name, path: "payload.aps.alert." + name, memory: &alert, stored: &storedAlert,
                              protected: protectsAlert, crypt: crypt, changed: &changed)
                }
                aps["alert"] = .object(alert)
                storedAps["alert"] = .object(storedAlert)
            }
            payload["aps"] = .object(aps)
            object["payload"] = .object(payload)
            storedPayload["aps"] = .object(storedAps)
            stored["payload"] = .object(storedPayload)
        default:
            break
        }
        return Prepared(memory: .object(object), stored: changed ? .object(stored) : nil)
    }

    private static func field(_ name: String, path: String, memory: inout [String: JSONValue], stored: inout [String: JSONValue],
                              protected: Bool, crypt: Crypt, changed: inout Bool) throws {
        let sealedName = name + sealedSuffix
        let forgottenName = name + forgottenSuffix
        if protected, let clear = try clearText(memory[name], of: name) {
            // Clear in the log (plain SQL submit): sealed at rest from now on, or, for a
            // forgotten user, gone.
            if crypt.forgotten {
                memory[name] = nil
                memory[forgottenName] = .bool(true)
                stored[name] = nil
                stored[forgottenName] = .bool(true)
                changed = true
            } else if let seal = crypt.seal {
                stored[name] = nil
                stored[sealedName] = .string(try seal(clear, path))
                changed = true
            }
        } else if case .string(let sealed)? = memory[sealedName] {
            let opened: ProtectedText
            let value: JSONValue?
            do {
                opened = crypt.forgotten ? ProtectedText.forgotten : try crypt.open(sealed, path)
                value = try opened.text.map { try self.value(ofOpened: $0, of: name) }
            } catch let error as SealedForAnotherWorker {
                throw error
            } catch where !crypt.isAtRest(sealed) {
                memory[sealedName] = nil
                memory[name + unreadableSuffix] = .bool(true)
                return
            }
            memory[sealedName] = nil
            if let value {
                memory[name] = value
            } else {
                memory[forgottenName] = .bool(true)
            }
            guard !crypt.isAtRest(sealed) else { return }
            // Sealed to the intake key, which is no user's: at rest under the user's key, or
            // nothing at all once the user is forgotten.
            if opened.isForgotten {
                stored[sealedName] = nil
                stored[forgottenName] = .bool(true)
                changed = true
            } else if let clear = opened.text, let seal = crypt.seal {
                stored[sealedName] = .string(try seal(clear, path))
                changed = true
            }
        }
    }

    /// A field's clear text, as it is sealed, whatever its JSON type: a string as itself (a
    /// localized argument list as its JSON text, whatever its elements); any other value as
    /// `jsonValueMark` then its JSON text. nil when there is no text: the field is absent or
    /// null, or it is an alert object (its own fields are protected one by one).
    package static func clearText(_ value: JSONValue?, of name: String) throws -> String? {
        guard let value, value != .null else { return nil }
        if alertArgumentFields.contains(name) { return try value.jsonText() }
        switch value {
        case .string(let text): return text
        case .object where name == "alert": return nil
        default: return jsonValueMark + (try value.jsonText())
        }
    }

    /// The value `clearText` made `text` from: what a handler reads once the field is opened.
    /// Throws when `text` is not such a form (sealed by a producer that did not follow it).
    package static func value(ofOpened text: String, of name: String) throws -> JSONValue {
        if alertArgumentFields.contains(name) { return try JSONValue(parsing: text) }
        guard text.hasPrefix(jsonValueMark) else { return .string(text) }
        return try JSONValue(parsing: String(text.unicodeScalars.dropFirst()))
    }
}

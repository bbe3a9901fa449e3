import Foundation

/// Text a person typed or was sent (a reply, a message body): protected text. A handler
/// reads it in clear, in memory only; at rest actiond keeps it sealed under its user's data
/// key. Once the user is forgotten (`actiond forget`) it reads as `forgotten`: a value of its
/// own, never an error.
///
/// Put `ProtectedText` in a handler's events, never in its state: an event that holds one is
/// sealed when it is stored; a state that holds one cannot be stored (its report view and
/// `actiond rebuild` compare states as stored). Its description never shows the text, so
/// logging an event or an error that holds one does not leak it.
public struct ProtectedText: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible, ExpressibleByStringLiteral {
    private enum Content: Sendable, Hashable {
        case clear(String)
        case forgotten
    }

    private let content: Content

    /// Text in clear, as the person typed it.
    public init(_ text: String) { content = .clear(text) }

    /// Text in clear, from a literal (tests, fixed texts).
    public init(stringLiteral text: String) { content = .clear(text) }

    private init(content: Content) { self.content = content }

    /// Text of a person who was forgotten: it can no longer be read by anyone.
    public static let forgotten = ProtectedText(content: .forgotten)

    /// The text; nil when it was forgotten.
    public var text: String? {
        if case .clear(let text) = content { return text }
        return nil
    }

    /// Whether the text was forgotten.
    public var isForgotten: Bool { content == .forgotten }

    /// `ProtectedText(12 characters)` or `ProtectedText(forgotten)`; never the text.
    public var description: String {
        switch content {
        case .clear(let text): "ProtectedText(\(text.count) characters)"
        case .forgotten: "ProtectedText(forgotten)"
        }
    }

    /// The same as `description`: never the text.
    public var debugDescription: String { description }

    // MARK: stored form

    private enum Keys: String, CodingKey {
        case sealed, forgotten
    }

    /// Stored as `{"sealed": "…"}` (see `TextSealing`), or `{"forgotten": true}`. Outside a
    /// sealing scope (a handler's state, a report) it cannot be stored: the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch content {
        case .forgotten:
            try container.encode(true, forKey: .forgotten)
        case .clear(let text):
            guard let scope = TextSealing.current else {
                throw EncodingError.invalidValue(self, EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "protected text can be stored only in a handler's events (where actiond seals it), not in its state or report"))
            }
            // Rewriting a forgotten person's text still in clear (actiond forget, keys reseal):
            // it is stored as forgotten, never sealed.
            if scope.clearBecomesForgotten {
                try container.encode(true, forKey: .forgotten)
                return
            }
            try container.encode(try scope.seal(text, field: Self.field(encoder.codingPath)), forKey: .sealed)
        }
    }

    /// `encode(to:)`'s stored form, written by hand (`JSONWritable` events that hold protected
    /// text): `field` is the key the text is stored under, which the seal binds, as the last
    /// named key of the coding path is for `encode(to:)`. Like `encode(to:)`, it throws outside
    /// the sealing actiond does around a handler's events.
    public func write(to json: inout JSONWriter, field: String) throws {
        json.beginObject()
        switch content {
        case .forgotten:
            json.key("forgotten"); json.bool(true)
        case .clear(let text):
            guard let scope = TextSealing.current else {
                throw EncodingError.invalidValue(self, EncodingError.Context(
                    codingPath: [],
                    debugDescription: "protected text can be stored only in a handler's events (where actiond seals it), not in its state or report"))
            }
            if scope.clearBecomesForgotten {
                json.key("forgotten"); json.bool(true)
            } else {
                json.key("sealed"); json.string(try scope.seal(text, field: field))
            }
        }
        json.endObject()
    }

    /// Reads the stored form: sealed text is opened with its user's key (forgotten when the
    /// key was destroyed by `actiond forget`); a plain string is text stored before sealing.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let legacy = try? single.decode(String.self) {
            TextSealing.current?.clearSeen?.mark()
            content = .clear(legacy)
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        if try container.decodeIfPresent(Bool.self, forKey: .forgotten) == true {
            content = .forgotten
            return
        }
        let sealed = try container.decode(String.self, forKey: .sealed)
        guard let scope = TextSealing.current else {
            throw DecodingError.dataCorruptedError(forKey: .sealed, in: container,
                                                   debugDescription: "sealed protected text read outside actiond's key scope")
        }
        self = try scope.open(sealed, field: Self.field(decoder.codingPath))
        if sealed.hasPrefix(UnsealedText.prefix) { scope.clearSeen?.mark() }
    }

    /// The field a text is bound to: the last named key of its path (array indices and the
    /// enum case around it do not count, so an older event version's reader binds alike).
    private static func field(_ path: [any CodingKey]) -> String {
        path.last(where: { $0.intValue == nil && $0.stringValue != Keys.sealed.rawValue })?.stringValue ?? ""
    }
}

import Foundation
import PropertyBased
import Testing
@testable import ActiondJSON

/// The hand-written JSON parser and writer against Foundation's: the same trees from the same
/// text, text that parses back to the tree it came from, and every malformed text refused.
@Suite("JSON text")
struct JSONTextTests {
    /// Foundation's reading of `text`, as actiond read event data before.
    static func foundation(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static let samples = ["", "a", "key", "quote \" backslash \\", "slash /", "line\nbreak\ttab\r", "nul \u{0} bell \u{7} del \u{7F}",
                          "e\u{301}", "\u{e9}", "😀", "\u{80}\u{FFFF}\u{10FFFF}", "日本語", "\u{2028}"]
    static let string = Gen.int(in: 0...(samples.count - 1)).map { samples[$0] }
    static let scalar = zip(Gen.int(in: 0...4), Gen.int(in: -1_000_000...1_000_000), Gen.double(in: -1e6...1e6), string).map { t -> JSONValue in
        switch t.0 {
        case 0: .null
        case 1: .bool(t.1 % 2 == 0)
        case 2: .number(Double(t.1))
        case 3: .number(t.2)
        default: .string(t.3)
        }
    }
    static let values = zip(scalar.array(of: 0...6), string.array(of: 0...6), scalar.array(of: 0...4)).map { t -> JSONValue in
        var object: [String: JSONValue] = [:]
        for (key, value) in zip(t.1, t.0) { object[key + "k"] = value }
        object["nested"] = .array(t.2 + [.object(object)])
        return JSONValue.object(object)
    }

    @Test func writtenTextParsesBackToTheSameTreeByBothParsers() async {
        await propertyCheck(count: 300, input: Self.values) { value in
            let text = try value.jsonText()
            #expect(try JSONValue(parsing: text) == value)
            #expect(try Self.foundation(text) == value)
            // Foundation's writing of the same tree reads the same way with ours.
            let foundationText = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            #expect(try JSONValue(parsing: foundationText) == value)
        }
    }

    @Test(arguments: [
        #"{"a":[1,2.5,-0.125,1e3,1E-2,0,-0,true,false,null],"b":{"c":"d\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\"}}"#,
        #"  [ ]  "#, #"{ }"#, #""\u0000""#, #"123456789012345678901234567890"#,
        #"{"payload":{"aps":{"alert":{"title":"Hi","body":"x"},"category":"MESSAGE"},"THREAD_ID":"t"},"request_id":"r"}"#,
    ])
    func agreesWithFoundationOnValidText(_ text: String) throws {
        #expect(try JSONValue(parsing: text) == Self.foundation(text))
    }

    /// Of duplicate keys the last wins, as PostgreSQL's jsonb (which the log's data comes from) keeps it.
    @Test func theLastOfDuplicateKeysWinsAsInJSONB() throws {
        #expect(try JSONValue(parsing: #"{"k":1,"k":2}"#) == .object(["k": .number(2)]))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{1:2}", "01", "-", "1.", ".5", "1e", "+1",
        "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"tab\there\"",
        "tru", "nul", "NaN", "Infinity", "1e999", "[1] x", "{\"a\":1}}", "//", "[1,/*c*/2]",
    ])
    func refusesMalformedText(_ text: String) {
        #expect(throws: JSONTextError.self) { try JSONValue(parsing: text) }
    }

    @Test func nestingIsBoundedAsFoundationBoundsIt() throws {
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: deep) }
        let tooDeep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONTextError.self) { try JSONValue(parsing: tooDeep) }
    }

    @Test func writingSortsKeysEscapesWhatJSONNeedsAndRefusesNonFiniteNumbers() throws {
        let value = JSONValue.object(["b": .number(1), "a": .string("x\"y\\z/\u{1}"), "c": .number(0.5)])
        #expect(try value.jsonText() == #"{"a":"x\"y\\z/\u0001","b":1,"c":0.5}"#)
        #expect(throws: JSONTextError.self) { try JSONValue.number(.nan).jsonText() }
        #expect(throws: JSONTextError.self) { try JSONValue.array([.number(.infinity)]).jsonText() }
    }
}

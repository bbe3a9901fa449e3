@testable import ActiondJSON
import Foundation
import Testing

/// The batch document is written by hand: every string must come back exactly, whatever it holds.
@Suite("JSON writer")
struct JSONWriterTests {
    @Test(arguments: ["plain", "", "quote \" and backslash \\ and \\\" both", "tab\tnew\nline\r\u{1}\u{1f}\u{7f}",
                      "é e\u{301} 漢字 🧑‍🍳", "\u{2028}\u{2029}", "</script>", String(repeating: "\\", count: 9)])
    func stringsRoundTrip(_ text: String) throws {
        var json = JSONWriter()
        json.beginObject()
        json.key("s"); json.string(text)
        json.key("n"); json.number(Int64.min)
        json.key("raw"); json.raw(#"{"a":[1,2,{"b":null}]}"#)
        json.key("list"); json.beginArray(); json.string(text); json.null(); json.number(7); json.endArray()
        json.endObject()
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any], "\(json.text)")
        #expect((parsed["s"] as? String)?.utf8.elementsEqual(text.utf8) == true, "\(json.text)")
        #expect(parsed["n"] as? Int64 == Int64.min)
        #expect(((parsed["raw"] as? [String: Any])?["a"] as? [Any])?.count == 3)
        #expect((parsed["list"] as? [Any])?.count == 3)
    }
}

import Foundation
import Testing
@testable import ActiondDomain
@testable import ActiondJSON

/// The byte-wise helpers agree with the definitions they replace: the UTF-8 views compared
/// element by element, and a search of the bytes.
@Suite("UTF-8 bytes")
struct UTF8BytesTests {
    /// Texts that differ in bytes only (look-alikes, canonically equivalent forms), share
    /// prefixes, are empty, or come from NSString (bridged, without contiguous UTF-8, on
    /// Darwin; native strings on Linux, where the helpers' fallback is not reached).
    static let texts: [String] = [
        "", "a", "ab", "abc", "b", "MARK", "MAR\u{212A}", "jos\u{e9}", "jose\u{301}", "\u{0}", "a\u{0}b",
        "notification", "notification.sent", "\u{1F600}", "\u{1F600}x", String(repeating: "x", count: 40),
        NSString(string: "bridged \u{e9}t\u{e9}") as String, NSString(string: "MARK") as String,
    ]

    @Test func equalityIsByteEquality() {
        for left in Self.texts {
            for right in Self.texts {
                #expect(UTF8Bytes.equal(left, right) == Array(left.utf8).elementsEqual(Array(right.utf8)), "\(left.debugDescription) vs \(right.debugDescription)")
                #expect(ExactString(left) == ExactString(right) || !Array(left.utf8).elementsEqual(Array(right.utf8)))
            }
        }
        // Canonically equivalent, different bytes: equal as Strings, not as bytes.
        #expect("jos\u{e9}" == "jose\u{301}")
        #expect(!UTF8Bytes.equal("jos\u{e9}", "jose\u{301}"))
        #expect(!UTF8Bytes.equal("MARK", "MAR\u{212A}"))
    }

    @Test func orderIsByteOrder() {
        for left in Self.texts {
            for right in Self.texts {
                #expect(UTF8Bytes.precedes(left, right) == Array(left.utf8).lexicographicallyPrecedes(Array(right.utf8)),
                        "\(left.debugDescription) vs \(right.debugDescription)")
            }
        }
        let keys = [StreamKey("timer", "b", user: "u"), StreamKey("timer", "a", user: "v"), StreamKey("notification", "z"),
                    StreamKey("timer", "a", user: "u")]
        #expect(keys.sorted().map(\.description) == ["notification[z]", "timer[a, u]", "timer[a, v]", "timer[b, u]"])
    }

    @Test func searchFindsEveryOccurrenceByBytes() {
        func naive(_ needle: String, _ haystack: String, from start: Int) -> Int? {
            let hay = Array(haystack.utf8), pin = Array(needle.utf8)
            guard start <= hay.count else { return nil }
            if pin.isEmpty { return start }
            guard hay.count >= pin.count else { return nil }
            for index in stride(from: start, through: hay.count - pin.count, by: 1) where Array(hay[index..<(index + pin.count)]) == pin {
                return index
            }
            return nil
        }
        let haystacks = Self.texts + ["{\"text\":\"hi\"}", "{\"request_id\":\"r\",\"text_sealed\":\"hpke1.k1.x\",\"b\":\"hpke1.k2\"}", "aaaa"]
        let needles = ["", "a", "aa", "\"text", "hpke1.", "\u{e9}", "e\u{301}", "\u{212A}", "K", "\u{0}", "x"]
        for haystack in haystacks {
            for needle in needles {
                for start in 0...(haystack.utf8.count + 1) {
                    #expect(UTF8Bytes.firstOffset(of: needle, in: haystack, from: start) == naive(needle, haystack, from: start),
                            "\(needle.debugDescription) in \(haystack.debugDescription) from \(start)")
                }
                #expect(UTF8Bytes.contains(haystack, needle) == (naive(needle, haystack, from: 0) != nil))
            }
        }
        // Canonically equivalent text is not found: bytes, not characters.
        #expect(!UTF8Bytes.contains("jose\u{301}", "\u{e9}"))
        #expect(!UTF8Bytes.contains("MAR\u{212A}", "K"))
    }
}

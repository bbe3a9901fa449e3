/// Text compared byte by byte, as PostgreSQL compares ids (`=` under a deterministic
/// collation). Swift's `String` equality treats canonically equivalent text ("é" and
/// "e\u{301}", "K" and the Kelvin sign "\u{212A}") as equal, so two different users, events,
/// streams, categories or actions would merge if compared or keyed by `String`. Every
/// comparison of an identifier goes through this type (or `String.isExactly(_:)`).
package struct ExactString: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let string: String

    package init(_ string: String) {
        self.string = string
    }

    package init(stringLiteral value: String) {
        self.string = value
    }

    package static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        UTF8Bytes.equal(lhs.string, rhs.string)
    }

    package func hash(into hasher: inout Hasher) {
        ExactString.hash(string, into: &hasher)
    }

    /// Hashes `text`'s UTF-8 bytes, at once when they are contiguous (native strings).
    package static func hash(_ text: String, into hasher: inout Hasher) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
        if done == nil {
            let bytes = Array(text.utf8)
            hasher.combine(bytes.count)
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    package static func < (lhs: ExactString, rhs: ExactString) -> Bool {
        UTF8Bytes.precedes(lhs.string, rhs.string)
    }

    package var description: String { string }
}

extension String {
    /// Whether `other` is the same text byte for byte, as PostgreSQL compares identifiers,
    /// not merely canonically equivalent as `==` decides ("jose\u{301}" is not "jos\u{e9}",
    /// "MAR\u{212A}" with a Kelvin sign is not "MARK"). Compare ids and identifiers with this.
    public func isExactly(_ other: String) -> Bool {
        ExactString(self) == ExactString(other)
    }
}

/// Text compared byte by byte, as PostgreSQL compares ids. Swift's `String` equality treats
/// canonically equivalent text ("é" and "e\u{301}") as equal, so two different users, events
/// or streams would merge if keyed by `String`.
package struct ExactString: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let string: String

    package init(_ string: String) {
        self.string = string
    }

    package init(stringLiteral value: String) {
        self.string = value
    }

    package static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        for byte in string.utf8 { hasher.combine(byte) }
    }

    package static func < (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }

    package var description: String { string }
}

/// Text compared byte by byte, as PostgreSQL compares ids. Swift's `String` equality treats
/// canonically equivalent text ("é" and "e\u{301}") as equal, so two different users, events
/// or streams would merge if keyed by `String`.
public struct ExactString: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let string: String

    public init(_ string: String) {
        self.string = string
    }

    public init(stringLiteral value: String) {
        self.string = value
    }

    public static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        for byte in string.utf8 { hasher.combine(byte) }
    }

    public static func < (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }

    public var description: String { string }
}

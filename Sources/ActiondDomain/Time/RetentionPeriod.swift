/// How long input events and outcomes are kept: `actiond prune --older-than DURATION`.
///
/// Written as a whole number of seconds, minutes, hours or days with its unit in lower case
/// (`30d`, `12h`, `90m`, `45s`): at least one second, at most 36,500 days (100 years). Any
/// other spelling (`30`, `1w`, `-5d`, `0d`, `12H`, `1.5d`, a number too large) is refused, so a
/// typo never prunes more than meant.
package struct RetentionPeriod: Sendable, Hashable, CustomStringConvertible {
    /// The period in seconds.
    package let seconds: Int64
    /// As written, e.g. `30d`.
    package let description: String

    /// The longest period accepted, in days.
    package static let maximumDays: Int64 = 36_500

    /// The rule a refused value breaks, for the error message.
    package static let rule =
        "a whole number of seconds, minutes, hours or days with its unit in lower case (30d, 12h, 90m, 45s), from 1s to \(maximumDays)d"

    /// Parses `text`; nil when it breaks `rule`.
    package init?(_ text: String) {
        guard let unit = text.last, let multiplier = Self.unitSeconds[unit] else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let count = Int64(digits), count >= 1 else { return nil }
        let seconds = count * multiplier  // at most 12 digits times 86,400: no overflow
        guard seconds <= Self.maximumDays * 86_400 else { return nil }
        self.seconds = seconds
        self.description = text
    }

    private static let unitSeconds: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
}

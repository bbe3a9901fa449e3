import Foundation

extension Date {
    /// A time at microsecond precision, PostgreSQL's: built the same way from the same count,
    /// so two routes to one instant (a decoded row, a JSON document) give equal `Date`s.
    package init(microsecondsSince1970 microseconds: Int64) {
        self.init(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// Microseconds since 1970, rounded to the nearest.
    package var microsecondsSince1970: Int64 {
        Int64((timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// The same instant rounded to microseconds, in its canonical form.
    package var roundedToMicroseconds: Date {
        Date(microsecondsSince1970: microsecondsSince1970)
    }
}

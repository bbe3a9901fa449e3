import Foundation

/// RFC 3339 text with exactly six fractional digits in UTC ("2026-11-22T09:30:00.250000Z"):
/// how domain events and projections store times, so PostgreSQL reads them back with
/// `::timestamptz` at full precision. Written by hand because Foundation's ISO 8601 styles
/// stop at milliseconds.
///
/// Years past 9999 are written with all their digits ("10000-01-01T00:08:00.000000Z", which
/// PostgreSQL reads back): a snooze from the last minute of 9999 lands there. A stored time
/// must lie in `storableMicroseconds`; `stored(_:)` refuses any other, so a report view never meets text
/// it cannot cast.
package enum MicrosecondTimestamp {
    /// 0001-01-01T00:00:00Z up to 100000-01-01T00:00:00Z (excluded), in microseconds since 1970:
    /// the times a domain event or state may hold (PostgreSQL's own range is wider; RFC 3339
    /// has no year 0). `Date` is a `Double`: exact to the microsecond until about 2140, to
    /// within about 60 µs in year 9999.
    package static let storableMicroseconds: Range<Int64> = -62_135_596_800_000_000..<3_093_527_980_800_000_000

    /// `format(date)`, or an error naming the time when it is outside `storableMicroseconds`.
    package static func stored(_ date: Date) throws -> String {
        // Bounded as a Double first: converting a larger one to microseconds would overflow.
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 4e12, storableMicroseconds.contains(date.microsecondsSince1970) else {
            throw UnstorableTime(date: date)
        }
        return format(date)
    }

    /// The text of `date`, which must be in `storable` (workloads and tests; stored times go
    /// through `stored(_:)`).
    package static func format(_ date: Date) -> String {
        let microseconds = date.microsecondsSince1970
        var seconds = microseconds / 1_000_000
        var fraction = microseconds % 1_000_000
        if fraction < 0 { seconds -= 1; fraction += 1_000_000 }
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        // Digits written directly: String(format:) cost 7 % of a worker's time in a profile.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(27)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(48 + (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        let year = Int(parts.tm_year) + 1900
        digits(year, max(4, String(year).count)); bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2); bytes.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2); bytes.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2); bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2); bytes.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2); bytes.append(UInt8(ascii: "."))
        digits(Int(fraction), 6); bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses what `format` writes (the fraction may have 0 to 6 digits).
    package static func parse(_ text: String) -> Date? {
        var bytes = Array(text.utf8)
        // A five-digit year (10000 to 99999): its first digit counts ten thousands, the rest
        // parses as a four-digit year.
        var extraYears = 0
        if bytes.count > 5, bytes[5] == UInt8(ascii: "-"), (49...57).contains(bytes[0]) {
            extraYears = Int(bytes[0] - 48) * 10_000
            bytes.removeFirst()
        }
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[10] == UInt8(ascii: "T"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var fraction = 0
        if bytes[19] == UInt8(ascii: ".") {
            let digits = 20..<(bytes.count - 1)
            guard digits.count <= 6, let value = number(digits) else { return nil }
            fraction = value * Int(pow(10, Double(6 - digits.count)))
        } else if bytes.count != 20 {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year + extraYears - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int64(timegm(&parts))
        return Date(microsecondsSince1970: seconds * 1_000_000 + Int64(fraction))
    }
}

/// A time a handler produced that no stored document may hold (see
/// `MicrosecondTimestamp.storableMicroseconds`): its event fails, naming the time, instead of writing text
/// that would break every report reading it.
package struct UnstorableTime: Error, CustomStringConvertible {
    package var date: Date
    package var description: String {
        "a time \(date.timeIntervalSince1970) s from 1970 is outside 0001-01-01T00:00:00Z ..< 100000-01-01T00:00:00Z, the times actiond stores"
    }
}

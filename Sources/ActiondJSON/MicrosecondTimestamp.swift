import Foundation

/// RFC 3339 text with exactly six fractional digits in UTC ("2026-11-22T09:30:00.250000Z"):
/// how domain events and projections store times, so PostgreSQL reads them back with
/// `::timestamptz` at full precision. Written by hand because Foundation's ISO 8601 styles
/// stop at milliseconds.
///
/// A stored time must lie in `storableMicroseconds`, where a `Date` (a `Double`) holds every
/// microsecond exactly, so text read back and written again is the same text (a rebuild
/// equals what the workers wrote); `stored(_:)` refuses any other.
package enum MicrosecondTimestamp {
    /// 1900-01-01T00:00:00Z up to 2106-01-01T00:00:00Z (excluded), in microseconds since 1970:
    /// the times a domain event or state may hold. Within it, seconds since 1970 and since
    /// 2001 (`Date`'s reference) both stay under 2^32, where a `Double`'s step is under half a
    /// microsecond, so every microsecond survives text → `Date` → text. Submit accepts
    /// occurred_at from 1900 through 2099, leaving room for derived times (a snooze of up to
    /// 366 days).
    package static let storableMicroseconds: Range<Int64> = -2_208_988_800_000_000..<4_291_747_200_000_000

    /// `format(date)`, or an error naming the time when it is outside `storableMicroseconds`.
    package static func stored(_ date: Date) throws -> String {
        // Bounded as a Double first: converting a larger one to microseconds would overflow.
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 4e12, storableMicroseconds.contains(date.microsecondsSince1970) else {
            throw UnstorableTime(date: date)
        }
        return format(date)
    }

    /// The text of `date`, which must be in `storableMicroseconds` (workloads and tests;
    /// stored times go through `stored(_:)`).
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
        digits(Int(parts.tm_year) + 1900, 4); bytes.append(UInt8(ascii: "-"))
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
        let bytes = Array(text.utf8)
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
        parts.tm_year = Int32(year - 1900)
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
        "a time \(date.timeIntervalSince1970) s from 1970 is outside 1900-01-01T00:00:00Z ..< 2106-01-01T00:00:00Z, the times actiond stores exactly"
    }
}

import ActiondBuiltInHandlers
@testable import ActiondDomain
@testable import ActiondJSON
import Foundation
import Testing

/// Stored times: every one reads back as the instant it was, to the microsecond, across the
/// whole range actiond stores.
@Suite("Microsecond timestamps")
struct MicrosecondTimestampTests {
    static func date(_ seconds: Int64, micro: Int64 = 0) -> Date {
        Date(microsecondsSince1970: seconds * 1_000_000 + micro)
    }

    @Test func theEdgesOfTheRangeRoundTrip() throws {
        let cases: [(Date, String)] = [
            (Self.date(-2_208_988_800), "1900-01-01T00:00:00.000000Z"),
            (Self.date(-2_208_988_800, micro: 1), "1900-01-01T00:00:00.000001Z"),
            (Self.date(4_291_747_199, micro: 999_999), "2105-12-31T23:59:59.999999Z"),
            // A snooze of 540 s from the last minute of 2099.
            (Self.date(4_102_444_740 + 540, micro: 123_457), "2100-01-01T00:08:00.123457Z"),
            (Self.date(1_795_000_000, micro: 123_456), "2026-11-18T11:06:40.123456Z"),
            (Self.date(-1, micro: 999_999), "1969-12-31T23:59:59.999999Z"),
        ]
        for (date, text) in cases {
            #expect(try MicrosecondTimestamp.stored(date) == text, "\(text)")
            #expect(MicrosecondTimestamp.parse(text) == date, "\(text)")
        }
    }

    /// Any microsecond of the range: text → Date → text gives the same text, so a rebuild
    /// (which reads the stored text back) writes what the workers wrote.
    @Test func everyMicrosecondOfTheRangeSurvivesAReadAndAWrite() throws {
        var generator = SystemRandomNumberGenerator()
        let range = MicrosecondTimestamp.storableMicroseconds
        var samples = (0..<20_000).map { _ in Int64.random(in: range, using: &generator) }
        samples += [range.lowerBound, range.upperBound - 1, range.upperBound - 999_999, 0, -1, 1]
        for microseconds in samples {
            let date = Date(microsecondsSince1970: microseconds)
            #expect(date.microsecondsSince1970 == microseconds)
            let text = try MicrosecondTimestamp.stored(date)
            let back = try #require(MicrosecondTimestamp.parse(text))
            #expect(back == date && back.microsecondsSince1970 == microseconds, "\(microseconds): \(text)")
        }
    }

    @Test func aTimeOutsideTheRangeIsRefusedNotWritten() throws {
        for date in [Self.date(-2_208_988_801), Self.date(4_291_747_200), Self.date(253_402_300_740),
                     Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: 1e15)] {
            #expect(throws: UnstorableTime.self) { try MicrosecondTimestamp.stored(date) }
        }
        struct Fired: Encodable { var at: Date }
        #expect(throws: UnstorableTime.self) {
            try DomainCoding.encode(Fired(at: Date(timeIntervalSince1970: 5e9)))
        }
    }

    @Test func aSnoozeSettingIsBoundedSoItsFiringTimeIsStorable() throws {
        let file = #"{"categories":[{"identifier":"T","handler":"timer","settings":{"snooze_seconds":31622401},"actions":[{"identifier":"S","title":"Snooze"}]}]}"#
        #expect(throws: CategoryFileError.self) { try CategoryRegistry.parse(Data(file.utf8)) }
        // The latest occurred_at submit accepts, snoozed as long as a category may.
        let latest = Self.date(4_102_444_799, micro: 999_999).addingTimeInterval(Double(TimerHandler.longestSnooze))
        #expect(throws: Never.self) { try MicrosecondTimestamp.stored(latest) }
    }
}

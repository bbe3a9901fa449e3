@testable import ActiondDomain
import Foundation
import Testing

/// Stored times: every one reads back as the instant it was, at the edges of the range too.
@Suite("Microsecond timestamps")
struct MicrosecondTimestampTests {
    static func date(_ seconds: Int64, micro: Int64 = 0) -> Date {
        Date(microsecondsSince1970: seconds * 1_000_000 + micro)
    }

    @Test func theEdgesOfTheRangeRoundTrip() throws {
        let cases: [(Date, String)] = [
            (Self.date(-62_135_596_800), "0001-01-01T00:00:00.000000Z"),
            (Self.date(253_402_300_799, micro: 500_000), "9999-12-31T23:59:59.500000Z"),
            // A snooze of 540 s from the last minute of 9999.
            (Self.date(253_402_300_740 + 540), "10000-01-01T00:08:00.000000Z"),
            (Self.date(3_093_527_980_799), "99999-12-31T23:59:59.000000Z"),
            (Self.date(1_795_000_000, micro: 123_456), "2026-11-18T11:06:40.123456Z"),
            (Self.date(-1, micro: 999_999), "1969-12-31T23:59:59.999999Z"),
        ]
        for (date, text) in cases {
            #expect(try MicrosecondTimestamp.stored(date) == text, "\(text)")
            #expect(MicrosecondTimestamp.parse(text) == date, "\(text)")
        }
    }

    @Test func aTimeNoReportCouldReadIsRefusedNotWritten() throws {
        for date in [Self.date(-62_135_596_801), Self.date(3_093_527_980_800),
                     Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: 1e15)] {
            #expect(throws: UnstorableTime.self) { try MicrosecondTimestamp.stored(date) }
        }
        struct Fired: Encodable { var at: Date }
        #expect(throws: UnstorableTime.self) {
            try DomainCoding.encode(Fired(at: Date(timeIntervalSince1970: 4e12)))
        }
    }

    @Test func aSnoozeSettingIsBoundedSoItsFiringTimeIsStorable() throws {
        let file = #"{"categories":[{"identifier":"T","handler":"timer","settings":{"snooze_seconds":31622401},"actions":[{"identifier":"S","title":"Snooze"}]}]}"#
        #expect(throws: CategoryFileError.self) { try CategoryRegistry.parse(Data(file.utf8)) }
        let latest = Self.date(253_402_300_799).addingTimeInterval(Double(TimerHandler.longestSnooze))
        #expect(throws: Never.self) { try MicrosecondTimestamp.stored(latest) }
    }
}

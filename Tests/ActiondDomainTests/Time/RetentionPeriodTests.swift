@testable import ActiondDomain
import Testing

@Suite("Retention period")
struct RetentionPeriodTests {
    @Test(arguments: [("30d", Int64(2_592_000)), ("12h", 43_200), ("90m", 5_400), ("45s", 45), ("1s", 1),
                      ("36500d", 3_153_600_000), ("876000h", 3_153_600_000), ("007d", 604_800)])
    func accepted(_ text: String, seconds: Int64) throws {
        let period = try #require(RetentionPeriod(text))
        #expect(period.seconds == seconds && period.description == text)
    }

    @Test(arguments: ["30", "1w", "-5d", "0d", "0s", "d", "12H", "1.5d", "", " 30d", "30d ", "+30d", "36501d",
                      "3153600001s", "99999999999999999999d", "9223372036854775807s", "３０d", "1e3s", "30dd"])
    func refused(_ text: String) {
        #expect(RetentionPeriod(text) == nil)
    }
}

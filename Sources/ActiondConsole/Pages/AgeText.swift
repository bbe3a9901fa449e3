import Foundation
import Logging

/// An age typed in a filter: `30s`, `15m`, `12h`, `7d`.
enum AgeText {
    static let rule = "a whole number followed by s, m, h or d (30m, 12h, 7d)"

    static func seconds(_ text: String) -> Int? {
        guard let unit = text.last, let number = Int(text.dropLast()), number >= 0, number <= 36_500 * 86_400 else { return nil }
        switch unit {
        case "s": return number
        case "m": return number * 60
        case "h": return number * 3600
        case "d": return number <= 36_500 ? number * 86_400 : nil
        default: return nil
        }
    }
}

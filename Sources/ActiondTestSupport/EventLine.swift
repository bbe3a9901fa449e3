import Foundation

/// One event as a producer submits it: a JSON object on one line, the envelope (`id`, `type`,
/// `user_id`, `occurred_at`, in that order) around `data`. Every test builds its lines here
/// (a team's, through `ActiondTestDatabase.eventLine`).
///
/// The values go in as written, unescaped: `data` is JSON text, and a test may write an
/// invalid line on purpose (`at: "yesterday"`).
package enum EventLine {
    /// When an event happened unless a test says otherwise.
    package static let defaultTime = "2026-11-22T09:30:00Z"

    package static func json(_ id: String, _ type: String, user: String = "ana", at time: String = defaultTime,
                             data: String = "{}") -> String {
        #"{"id":"\#(id)","type":"\#(type)","user_id":"\#(user)","occurred_at":"\#(time)","data":\#(data)}"#
    }

    /// The line of an event `seconds` after 2026-11-22T09:00:00Z (see `time(_:)`).
    package static func json(_ id: String, _ type: String, user: String = "ana", at seconds: Int, data: String = "{}") -> String {
        json(id, type, user: user, at: time(seconds), data: data)
    }

    /// `seconds` (under an hour) after 2026-11-22T09:00:00Z, in whole seconds:
    /// `time(1800)` is `defaultTime`.
    package static func time(_ seconds: Int) -> String {
        String(format: "2026-11-22T09:%02d:%02dZ", seconds / 60, seconds % 60)
    }
}

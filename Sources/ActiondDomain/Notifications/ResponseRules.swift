import Foundation

/// Limits of the response checks.
package struct ResponseRules: Sendable, Hashable {
    /// How long a response may wait for a notification it arrived before (default 10 minutes).
    package var holdWindow: Duration
    /// Longest text a reply may have, in characters (default 4000).
    package var maximumTextLength: Int

    package init(holdWindow: Duration = .seconds(600), maximumTextLength: Int = 4000) {
        self.holdWindow = holdWindow
        self.maximumTextLength = maximumTextLength
    }

    /// Checks `response` from `userID`, submitted at `submittedAt`, at `now`, against the
    /// notification it answers (nil when not recorded) and that notification's category.
    package func check(
        _ response: NotificationResponse, from userID: String, submittedAt: Date, now: Date,
        notification: SentNotification?, category: NotificationCategory?
    ) -> ResponseCheck {
        guard let notification else {
            let deadline = submittedAt.addingTimeInterval(holdWindow.seconds)
            return now < deadline ? .hold(until: deadline) : .reject(.unknownNotification)
        }
        // Byte for byte, as PostgreSQL keys users: "jose\u{301}" is not "jos\u{e9}".
        guard notification.userID.isExactly(userID) else { return .reject(.notYourNotification) }
        // Opening needs nothing of the category; every other action is the category's.
        if response.action.isExactly(SystemActionIdentifier.defaultAction.rawValue) {
            return !response.hasText ? .proceed(.opened) : .reject(.invalidText)
        }
        guard let category else { return .reject(.unknownAction) }
        switch ExactString(response.action) {
        case ExactString(SystemActionIdentifier.dismissAction.rawValue):
            guard category.deliversDismiss else { return .reject(.dismissNotEnabled) }
            return !response.hasText ? .proceed(.dismissed) : .reject(.invalidText)
        default:
            guard let action = category.action(response.action) else { return .reject(.unknownAction) }
            if action.requiresAuthentication && response.locked { return .reject(.authenticationRequired) }
            guard action.textInput != nil else {
                return !response.hasText ? .proceed(.action(action, text: nil)) : .reject(.invalidText)
            }
            guard !response.textUnreadable, let text = response.text, isValidText(text) else { return .reject(.invalidText) }
            return .proceed(.action(action, text: text))
        }
    }

    /// A forgotten text (its user was forgotten before the event was decided) passes: what it
    /// was cannot be known, and its event must still be decided once.
    package func isValidText(_ text: ProtectedText) -> Bool {
        guard let clear = text.text else { return true }
        return isValidText(clear)
    }

    /// Not empty, at most `maximumTextLength` characters (code points, as PostgreSQL's
    /// char_length counts them), no NUL.
    package func isValidText(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.count <= maximumTextLength && !text.unicodeScalars.contains("\0")
    }
}

import ActiondDomain
import Foundation

/// The handlers every actiond build knows (PRODUCT's MEETING_INVITATION, TIMER_EXPIRED and
/// MESSAGE categories), written on the same handler API a team's are. They live apart from
/// that API so a team's `import ActiondKit` brings the API and not these types.
extension CategoryHandlers {
    /// meeting_invitation, timer and message_thread.
    package static let builtInHandlers: [any CategoryHandler] = [MeetingInvitationHandler(), TimerHandler(), MessageThreadHandler()]

    /// The built-in handlers alone.
    package static let builtIn: CategoryHandlers = {
        do { return try CategoryHandlers(validating: builtInHandlers) } catch { preconditionFailure("the built-in handlers are invalid: \(error)") }
    }()

    /// `handlers` and the built-in ones, checked as a whole (names, kinds, settings, report views).
    package static func withBuiltIn(_ handlers: [any CategoryHandler]) throws(HandlerSetError) -> CategoryHandlers {
        try CategoryHandlers(validating: builtInHandlers + handlers)
    }
}

extension EventRouter {
    /// A router over the built-in handlers.
    package init(rules: ResponseRules = ResponseRules()) {
        self.init(handlers: .builtIn, rules: rules)
    }
}

extension CategoryRegistry {
    /// `categories` validated against the built-in handlers.
    package init(categories: [NotificationCategory]) throws(CategoryFileError) {
        try self.init(categories: categories, handlers: .builtIn)
    }

    /// A categories file validated against the built-in handlers.
    package static func parse(_ data: Data) throws(CategoryFileError) -> CategoryRegistry {
        try parse(data, handlers: .builtIn)
    }
}

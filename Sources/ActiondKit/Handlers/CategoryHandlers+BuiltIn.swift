import ActiondBuiltInHandlers
import ActiondDomain

extension CategoryHandlers {
    /// `handlers` and the built-in ones (meeting_invitation, timer, message_thread), checked
    /// as a whole: no two with one name, kind or report view, every setting and input type
    /// declared once. Throws every problem at once.
    ///
    /// ```swift
    /// let handlers = try CategoryHandlers([OrderReadyHandler()])
    /// ```
    public init(_ handlers: [any CategoryHandler]) throws(HandlerSetError) {
        self = try CategoryHandlers.withBuiltIn(handlers)
    }
}

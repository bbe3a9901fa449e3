/// An event a handler's decision produces: appended to `actiond.domain_events` with its
/// name, and folded into the handler's state.
public protocol HandlerEvent: Codable, Hashable, Sendable {
    /// The event's name in the log, such as `order.on_my_way`.
    var name: String { get }
    /// Whether the event holds protected text (a reply's text). Such events are never read
    /// by a report.
    var carriesProtectedText: Bool { get }
}

extension HandlerEvent {
    /// Default: false.
    public var carriesProtectedText: Bool { false }
}

/// The shared events of a handler without shared state.
extension Never: HandlerEvent {
    /// Never called: there is no such event.
    public var name: String { switch self {} }
}

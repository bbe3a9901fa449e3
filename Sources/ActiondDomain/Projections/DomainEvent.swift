/// What applying an input event changed, appended to the log of domain events: a handler's
/// event (or one of actiond's own), the stream it belongs to, and the schema version it is
/// stored with. Projection rows are folds of these, live and in `actiond rebuild` alike.
package struct DomainEvent: Sendable, Hashable {
    /// The projection row this event changes.
    package let stream: StreamKey
    /// The handler's event.
    package let payload: any HandlerEvent
    /// Version of the payload's encoded form.
    package let schemaVersion: Int
    /// The fold and storage of the stream's kind.
    let codec: any StreamCodec

    init(stream: StreamKey, payload: any HandlerEvent, schemaVersion: Int, codec: any StreamCodec) {
        self.stream = stream
        self.payload = payload
        self.schemaVersion = schemaVersion
        self.codec = codec
    }

    /// The event's name in the log (`invitation.answered`…).
    package var type: String { payload.name }

    /// Whether the event holds protected text (message text, sealed at rest).
    package var carriesProtectedText: Bool { payload.carriesProtectedText }

    /// The payload as stored (`actiond.domain_events.data`).
    package func encoded() throws -> String { try Self.encode(payload) }

    /// The payload as `type`; nil when it is another kind's.
    package func event<T>(as type: T.Type) -> T? { payload as? T }

    /// The state of `stream` after this event.
    package func apply(to state: StreamState?) -> StreamState { codec.apply(self, to: state) }

    private static func encode(_ payload: some HandlerEvent) throws -> String { try DomainCoding.encode(payload) }
    private static func hashable(_ payload: some HandlerEvent) -> AnyHashable { AnyHashable(payload) }

    package static func == (lhs: DomainEvent, rhs: DomainEvent) -> Bool {
        lhs.stream == rhs.stream && lhs.schemaVersion == rhs.schemaVersion && Self.hashable(lhs.payload) == Self.hashable(rhs.payload)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(stream)
        hasher.combine(Self.hashable(payload))
    }
}

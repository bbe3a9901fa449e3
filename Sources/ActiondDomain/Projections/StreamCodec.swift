import Foundation

/// One kind of projection stream: how its events fold into its state, and how both are
/// stored. Handlers' state and shared state, and actiond's own notification and
/// protected-data rows, are all streams of this shape, so the worker and `actiond rebuild`
/// treat every kind alike.
package protocol StreamCodec: Sendable {
    var kind: String { get }
    /// Reads an event of this kind stored with `version`.
    func decodeEvent(_ json: String, version: Int, stream: StreamKey) throws -> DomainEvent
    /// Reads a stored projection document (`{"report": …, "state": …, "version": N}`).
    func decodeState(_ document: String) throws -> StreamState
    /// The fold of one event.
    func apply(_ event: DomainEvent, to state: StreamState?) -> StreamState
    /// The stored projection document of a state: the state, its report figures (what the
    /// report views read) and its schema version.
    func document(_ state: StreamState) throws -> String
    /// `document`, by Codable alone (tests hold the written form to it).
    func documentWithCodable(_ state: StreamState) throws -> String
    /// `decodeState`, by the `Decodable` form alone (tests hold the read form to it).
    func decodeStateWithCodable(_ document: String) throws -> StreamState
}

/// A stream kind with typed state and events; the fold and the readers come from its handler.
struct TypedStreamCodec<State: Codable & Hashable & Sendable, Event: HandlerEvent, Report: Encodable>: StreamCodec {
    let kind: String
    let eventVersion: Int
    let stateVersion: Int
    let fold: @Sendable (Event, State?, StreamKey) -> State
    let report: @Sendable (State) -> Report
    let readEvent: @Sendable (String, Int) throws -> Event
    let readState: @Sendable (String, Int) throws -> State

    /// `payload` as a domain event of `stream`.
    func event(_ payload: Event, stream: StreamKey) -> DomainEvent {
        DomainEvent(stream: stream, payload: payload, schemaVersion: eventVersion, codec: self)
    }

    func decodeEvent(_ json: String, version: Int, stream: StreamKey) throws -> DomainEvent {
        // Read in today's shape: a folded event of an older version is kept as today's.
        event(try readEvent(json, version), stream: stream)
    }

    /// One parse of the document: the state in today's shape, or, written with another
    /// version, its JSON handed to the handler with that version.
    func decodeState(_ document: String) throws -> StreamState {
        // A state that reads itself (JSONReadable), stored in today's shape, is read from the
        // parsed tree; anything else (an older version or shape, a malformed document) by
        // the Decodable form, which also names what is wrong.
        if let readable = State.self as? any JSONReadable.Type, let tree = try? JSONValue(parsing: document),
           (try? tree.optionalMember("version")?.int() ?? 1) == stateVersion, let stateJSON = try? tree.member("state"),
           let state = try? readable.init(json: stateJSON) as? State {
            return StreamState(state)
        }
        return try decodeStateWithCodable(document)
    }

    /// `decodeState` by the `Decodable` form alone (tests hold the tree's reading to it).
    func decodeStateWithCodable(_ document: String) throws -> StreamState {
        let stored = try DomainCoding.decode(Stored.self, from: document, userInfo: [Stored.currentVersion: stateVersion])
        switch stored.state {
        case .current(let state): return StreamState(state)
        case .older(let json, let version): return StreamState(try readState(try DomainCoding.encode(json), version))
        }
    }

    func apply(_ event: DomainEvent, to state: StreamState?) -> StreamState {
        guard let payload = event.event(as: Event.self) else {
            preconditionFailure("a \(event.type) event was routed to the \(kind) stream")
        }
        return StreamState(fold(payload, state?.as(State.self), event.stream))
    }

    func document(_ state: StreamState) throws -> String {
        guard let value = state.as(State.self) else { preconditionFailure("a state of another kind was written as \(kind)") }
        let report = report(value)
        // The built-in handlers' states and reports write themselves (JSONWritable): the
        // document around them too, its keys in DomainCoding's order.
        if let writableState = value as? any JSONWritable, let writableReport = report as? any JSONWritable {
            var json = JSONWriter(capacity: 512)
            json.beginObject()
            json.key("report"); try writableReport.write(to: &json)
            json.key("state"); try writableState.write(to: &json)
            json.key("version"); json.number(stateVersion)
            json.endObject()
            return json.text
        }
        return try DomainCoding.encode(Document(report: report, state: value, version: stateVersion))
    }

    /// The document of `state` by Codable alone: what the written one must agree with.
    func documentWithCodable(_ state: StreamState) throws -> String {
        guard let value = state.as(State.self) else { preconditionFailure("a state of another kind was written as \(kind)") }
        return try DomainCoding.encodeWithCodable(Document(report: report(value), state: value, version: stateVersion))
    }

    private struct Document: Encodable {
        var report: Report
        var state: State
        var version: Int
    }

    /// A stored document, read by its version (absent: 1).
    private struct Stored: Decodable {
        static var currentVersion: CodingUserInfoKey { CodingUserInfoKey(rawValue: "actiond.stateVersion")! }

        enum Content {
            case current(State)
            case older(JSONValue, version: Int)
        }

        private enum Keys: String, CodingKey { case state, version }

        var state: Content

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            let version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 1
            state = version == decoder.userInfo[Self.currentVersion] as? Int
                ? .current(try container.decode(State.self, forKey: .state))
                : .older(try container.decode(JSONValue.self, forKey: .state), version: version)
        }
    }
}

/// The stream kinds a build knows: actiond's own and its handlers'.
package struct StreamCatalog: Sendable {
    private var codecs: [String: any StreamCodec] = [:]
    /// The kinds of streams shared by users (user ""): notifications and the handlers' shared
    /// state. Every other kind is per-user (HandlerSetValidator keeps a kind to one of the two).
    package let sharedKinds: Set<String>

    init(_ codecs: [any StreamCodec], sharedKinds: Set<String>) {
        for codec in codecs { self.codecs[codec.kind] = codec }
        self.sharedKinds = sharedKinds
    }

    /// The key of a stored row: a shared kind's rows are the stream's whatever user column
    /// they were stored under (on Citus, a key that spreads them: shared_stream_key.sql).
    package func key(kind: String, id: String, storedUser: String) -> StreamKey {
        StreamKey(kind, id, user: sharedKinds.contains(kind) ? "" : storedUser)
    }

    package var kinds: [String] { codecs.keys.sorted() }

    package func codec(_ kind: String) throws -> any StreamCodec {
        guard let codec = codecs[kind] else { throw UnknownStreamKind(kind: kind, known: kinds) }
        return codec
    }

    /// Reads a stored domain event of `stream`.
    package func decodeEvent(_ json: String, version: Int, stream: StreamKey) throws -> DomainEvent {
        try codec(stream.kind).decodeEvent(json, version: version, stream: stream)
    }

    /// Reads a stored projection row of `kind`.
    package func decodeState(kind: String, document: String) throws -> StreamState {
        try codec(kind).decodeState(document)
    }

    /// The stored document of a row of `kind`.
    package func document(kind: String, state: StreamState) throws -> String {
        try codec(kind).document(state)
    }
}

/// A projection kind no handler of this build declares.
package struct UnknownStreamKind: Error, CustomStringConvertible {
    package var kind: String
    package var known: [String]
    package var description: String {
        "the database holds state of kind \(kind), which no handler of this build declares (it knows \(known.joined(separator: ", "))); run the actiond build that has the handler"
    }
}

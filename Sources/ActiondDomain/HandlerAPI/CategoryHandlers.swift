/// The handlers a build knows: the built-in ones and a team's own. Categories files name
/// them; workers route each notification and response to its category's handler.
///
/// ```swift
/// let handlers = try CategoryHandlers([OrderReadyHandler()])   // with the built-in handlers
/// ```
///
/// That initializer comes with ActiondKit, which adds the built-in handlers; this module
/// knows no handler of its own.
public struct CategoryHandlers: Sendable {
    package let handlers: [String: any AnyCategoryHandler]
    package let catalog: StreamCatalog
    /// The handler that consumes each shared input type.
    package let inputs: [EventType: any AnyCategoryHandler]

    /// Exactly `handlers`, checked as a whole (names, kinds, settings, report views).
    package init(validating handlers: [any CategoryHandler]) throws(HandlerSetError) {
        let adapters = handlers.map { Self.adapter($0) }
        let problems = HandlerSetValidator.problems(in: adapters)
        guard problems.isEmpty else { throw HandlerSetError(problems: problems) }
        var byName: [String: any AnyCategoryHandler] = [:]
        var inputs: [EventType: any AnyCategoryHandler] = [:]
        for adapter in adapters {
            byName[adapter.name] = adapter
            for type in adapter.sharedInputs.keys { inputs[type] = adapter }
        }
        self.handlers = byName
        self.inputs = inputs
        self.catalog = StreamCatalog(CoreStreams.all + adapters.flatMap(\.codecs),
                                     sharedKinds: Set([StreamKey.notificationKind] + adapters.compactMap(\.sharedKind)))
        self.payloadKeys = Set(adapters.flatMap(\.requiredPayloadKeys))
    }

    /// Every custom payload key some handler requires: what a recorded notification keeps.
    package let payloadKeys: Set<String>

    private static func adapter<Handler: CategoryHandler>(_ handler: Handler) -> any AnyCategoryHandler {
        ErasedCategoryHandler(handler)
    }

    /// The handler names a categories file may use, sorted.
    public var names: [String] { handlers.keys.sorted() }

    /// Custom payload keys the handler `name` requires; nil for a handler this build lacks.
    public func requiredPayloadKeys(of name: String) -> [String]? { handlers[name]?.requiredPayloadKeys }

    /// The settings the handler `name` accepts; nil for a handler this build lacks.
    public func settings(of name: String) -> [HandlerSetting]? { handlers[name]?.settingDeclarations }

    /// The report views the handlers declare, by handler name.
    public var reportViews: [(handler: String, view: ReportView)] {
        handlers.values.compactMap { adapter in adapter.reportView.map { (adapter.name, $0) } }.sorted { $0.view.name < $1.view.name }
    }

    /// The input types the handlers take (`sharedInputs`), each with its handler, the data
    /// field naming the shared state it changes and the further fields it requires, by type:
    /// what `actiond migrate` registers for submit.
    public var inputTypes: [(type: EventType, handler: String, idField: String, requiredKeys: [String])] {
        inputs.map { type, handler in (type, handler.name, handler.sharedInputs[type] ?? "", handler.inputRequiredKeys[type] ?? []) }
            .sorted { $0.type.rawValue < $1.type.rawValue }
    }

    /// The stream kinds of a handler's views: its state's, and its shared state's.
    package func kinds(of name: String) -> (state: String, shared: String?)? {
        handlers[name].map { ($0.stateKind, $0.sharedKind) }
    }
}

/// Handlers that cannot be used together, with every problem.
public struct HandlerSetError: Error, CustomStringConvertible {
    /// One line per problem, naming the handler.
    public var problems: [String]
    /// Every problem, one per line.
    public var description: String { "invalid handlers:\n" + problems.map { "  - \($0)" }.joined(separator: "\n") }
}

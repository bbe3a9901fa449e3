/// An integer setting a handler accepts in a category's `settings`, with its default.
public struct HandlerSetting: Sendable, Hashable {
    public var name: String
    public var defaultValue: Int
    /// The smallest value accepted.
    public var minimum: Int
    /// The largest value accepted.
    public var maximum: Int

    public init(_ name: String, default defaultValue: Int, minimum: Int = 0, maximum: Int = Int.max) {
        self.name = name
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// A category's settings for its handler: the values given, defaults for the rest.
public struct HandlerSettings: Sendable, Hashable {
    public var values: [String: Int]

    public init(_ values: [String: Int]) {
        self.values = values
    }

    /// The value of `name`; 0 for a setting the handler does not declare.
    public subscript(name: String) -> Int { values[name] ?? 0 }
}

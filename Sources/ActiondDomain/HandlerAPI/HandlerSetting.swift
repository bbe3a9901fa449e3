/// An integer setting a handler accepts in a category's `settings`, with its default.
public struct HandlerSetting: Sendable, Hashable {
    /// The name a category's `settings` uses: lowercase letters, digits and `_`.
    public var name: String
    /// The value used when a category does not give the setting.
    public var defaultValue: Int
    /// The smallest value accepted.
    public var minimum: Int
    /// The largest value accepted.
    public var maximum: Int

    /// A setting `name`, `defaultValue` when a category does not give it, accepted from
    /// `minimum` to `maximum`.
    public init(_ name: String, default defaultValue: Int, minimum: Int = 0, maximum: Int = Int.max) {
        self.name = name
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// A category's settings for its handler: the values given, defaults for the rest.
public struct HandlerSettings: Sendable, Hashable {
    package var values: [String: Int]

    /// `values` by setting name (for tests; workers fill in the declared defaults).
    public init(_ values: [String: Int]) {
        self.values = values
    }

    /// The value of `name`: the category's, else the declared default; 0 for a setting the
    /// handler does not declare.
    public subscript(name: String) -> Int { values[name] ?? 0 }
}

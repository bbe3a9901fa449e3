/// The state of one projection row, whatever its handler's type: what the worker keeps in
/// its working set and writes back.
package struct StreamState: Sendable, Hashable {
    package let value: any Hashable & Sendable

    package init(_ value: any Hashable & Sendable) {
        self.value = value
    }

    /// The state as `type`; nil when it is another kind's.
    package func `as`<T>(_ type: T.Type) -> T? { value as? T }

    package static func == (lhs: StreamState, rhs: StreamState) -> Bool {
        AnyHashable(lhs.value) == AnyHashable(rhs.value)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(AnyHashable(value))
    }
}

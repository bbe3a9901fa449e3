/// A location inside a JSON document, printed as `$.categories[1].actions[0].title`.
package struct JSONPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    private enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    private var components: [Component]

    package static let root = JSONPath(components: [])

    package func appending(_ key: String) -> JSONPath {
        JSONPath(components: components + [.key(key)])
    }

    package func appending(index: Int) -> JSONPath {
        JSONPath(components: components + [.index(index)])
    }

    /// True when this path is `other` or lies below it.
    package func isInside(_ other: JSONPath) -> Bool {
        components.starts(with: other.components)
    }

    package var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .key(let key):
                let plain = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
                text += plain ? ".\(key)" : "[\"\(key)\"]"
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// Document order: parents before children, array elements by index.
    package static func < (lhs: JSONPath, rhs: JSONPath) -> Bool {
        for (left, right) in zip(lhs.components, rhs.components) where left != right {
            switch (left, right) {
            case (.index(let a), .index(let b)): return a < b
            case (.key(let a), .key(let b)): return a < b
            case (.key, .index): return true
            case (.index, .key): return false
            }
        }
        return lhs.components.count < rhs.components.count
    }
}

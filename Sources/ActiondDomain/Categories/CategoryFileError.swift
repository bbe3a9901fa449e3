/// A categories file that was refused, with every problem found in it, in document order.
public struct CategoryFileError: Error, Sendable, CustomStringConvertible {
    public var problems: [CategoryProblem]

    public init(problems: [CategoryProblem]) {
        self.problems = problems.sorted { ($0.path, $0.rule.rawValue) < ($1.path, $1.rule.rawValue) }
    }

    public var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return (["categories file refused, nothing stored (\(count)):"] + problems.map { "  \($0)" })
            .joined(separator: "\n")
    }
}

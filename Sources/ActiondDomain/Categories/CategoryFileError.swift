/// A categories file that was refused, with every problem found in it, in document order.
package struct CategoryFileError: Error, Sendable, CustomStringConvertible {
    package var problems: [CategoryProblem]

    package init(problems: [CategoryProblem]) {
        self.problems = problems.sorted { ($0.path, $0.rule.rawValue) < ($1.path, $1.rule.rawValue) }
    }

    package var description: String {
        let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return (["categories file refused, nothing stored (\(count)):"] + problems.map { "  \($0)" })
            .joined(separator: "\n")
    }
}

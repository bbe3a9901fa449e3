import Foundation

/// A Citus variant written as edits of its one-server function (`Schema/citus/functions/NAME.sql`
/// that starts with ``CitusVariantEdits/marker``): the variant is the one-server file with
/// each edit applied, so the two share every line but the ones Citus needs otherwise, and a
/// change to the one-server function reaches its variant by itself. An edit whose text no
/// longer occurs exactly once in the one-server file makes the variant fail to install, with
/// a sentence naming the edit (and `CitusVariantTests` fails first).
///
/// The format, read by people as a diff of the two:
///
///     -- made from functions/NAME.sql by these edits
///     -- (why the variant differs: comments, read by people only)
///     -- replace:
///         <lines of functions/NAME.sql, exactly, once>
///     -- with:
///         <the lines Citus runs instead>
///     -- end
///
/// Between the edits, only comments and blank lines. Written by hand, not a patch tool's
/// format: the file is read beside the function as SQL, and an edit must match exactly (no
/// fuzz, no line numbers), which no patch format on this machine's libraries promises.
package struct CitusVariantEdits: Sendable, Equatable {
    /// The first line of a variant written as edits.
    package static let marker = "-- made from functions/"

    package struct Edit: Sendable, Equatable {
        /// Text of the one-server file, whole lines, which must occur in it exactly once.
        package var replace: String
        package var with: String
    }

    package var edits: [Edit]

    /// Whether `text` (a file under `citus/functions/`) is written as edits.
    package static func isEdits(_ text: String) -> Bool { text.hasPrefix(marker) }

    /// Reads the edits, or says what is malformed (the line and the rule).
    package static func parse(_ text: String) -> Result<CitusVariantEdits, VariantError> {
        enum State { case between, replacing, replacingWith }
        var state = State.between
        var edits: [Edit] = []
        var replace: [Substring] = [], with: [Substring] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            switch (state, trimmed) {
            case (.between, "-- replace:"):
                state = .replacing
                replace = []
                with = []
            case (.between, _):
                guard trimmed.isEmpty || trimmed.hasPrefix("--") else {
                    return .failure(VariantError(message: "line \(index + 1): outside an edit, only comments may stand"))
                }
            case (.replacing, "-- with:"):
                guard !replace.isEmpty else {
                    return .failure(VariantError(message: "line \(index + 1): an edit replaces at least one line"))
                }
                state = .replacingWith
            case (.replacing, _):
                replace.append(line)
            case (.replacingWith, "-- end"):
                edits.append(Edit(replace: replace.joined(separator: "\n"), with: with.joined(separator: "\n")))
                state = .between
            case (.replacingWith, _):
                with.append(line)
            }
        }
        guard state == .between else {
            return .failure(VariantError(message: "the last edit has no \"-- with:\" or \"-- end\""))
        }
        guard !edits.isEmpty else { return .failure(VariantError(message: "no edit")) }
        return .success(CitusVariantEdits(edits: edits))
    }

    /// The one-server text with every edit applied in order; each edit's text must occur
    /// exactly once (in the text as the edits before it left it).
    package func apply(to oneServer: String) -> Result<String, VariantError> {
        var text = oneServer
        for (number, edit) in edits.enumerated() {
            let found = text.ranges(of: edit.replace)
            guard found.count == 1, let range = found.first else {
                let first = edit.replace.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                return .failure(VariantError(message: "edit \(number + 1) (\"\(first)\" …) occurs \(found.count) times in the one-server file, not once"))
            }
            text.replaceSubrange(range, with: edit.with)
        }
        return .success(text)
    }

    /// A variant that cannot be made: what is wrong, for the test and for migrate's error.
    package struct VariantError: Error, Sendable, Equatable {
        package var message: String
    }
}

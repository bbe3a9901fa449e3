/// Splits a SQL file into statements at top-level semicolons.
///
/// Written by hand because PostgresNIO runs one statement per query (extended protocol) and no
/// maintained Swift library splits PostgreSQL scripts. It understands what can hide a
/// semicolon: 'strings' (with '' escapes), "identifiers", $tag$ dollar quotes $tag$,
/// -- line comments and /* nested block comments */.
package enum SQLStatementSplitter {
    package static func split(_ sql: String) -> [String] {
        let chars = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var hasCode = false
        var i = 0

        func flush() {
            let text = String(current).trimmingWhitespace()
            if hasCode, !text.isEmpty { statements.append(text) }
            current = String.UnicodeScalarView()
            hasCode = false
        }
        func peek(_ offset: Int) -> Unicode.Scalar? {
            i + offset < chars.count ? chars[i + offset] : nil
        }
        func copy(until end: Int) {
            current.append(contentsOf: chars[i..<min(end, chars.count)])
            i = min(end, chars.count)
        }

        while i < chars.count {
            let c = chars[i]
            if c == "-" && peek(1) == "-" {
                var end = i
                while end < chars.count && chars[end] != "\n" { end += 1 }
                copy(until: end)
            } else if c == "/" && peek(1) == "*" {
                var depth = 0
                var end = i
                repeat {
                    if chars[end] == "/" && end + 1 < chars.count && chars[end + 1] == "*" { depth += 1; end += 2 }
                    else if chars[end] == "*" && end + 1 < chars.count && chars[end + 1] == "/" { depth -= 1; end += 2 }
                    else { end += 1 }
                } while depth > 0 && end < chars.count
                copy(until: end)
            } else if c == "'" || c == "\"" {
                var end = i + 1
                while end < chars.count {
                    if chars[end] == c {
                        if end + 1 < chars.count && chars[end + 1] == c { end += 2; continue }
                        end += 1
                        break
                    }
                    end += 1
                }
                hasCode = true
                copy(until: end)
            } else if c == "$", let tag = dollarTag(chars, at: i) {
                let closing = Array(tag.unicodeScalars)
                var end = i + closing.count
                while end < chars.count && !(chars[end] == "$" && chars[end..<min(end + closing.count, chars.count)].elementsEqual(closing)) {
                    end += 1
                }
                hasCode = true
                copy(until: end + closing.count)
            } else if c == ";" {
                i += 1
                flush()
            } else {
                if !c.properties.isWhitespace { hasCode = true }
                current.append(c)
                i += 1
            }
        }
        flush()
        return statements
    }

    /// `$tag$` or `$$` starting at `index`, or nil when the `$` is something else (e.g. `$1`).
    private static func dollarTag(_ chars: [Unicode.Scalar], at index: Int) -> String? {
        var end = index + 1
        while end < chars.count, chars[end] == "_" || chars[end].properties.isAlphabetic || (end > index + 1 && ("0"..."9").contains(chars[end])) {
            end += 1
        }
        guard end < chars.count, chars[end] == "$" else { return nil }
        return String(String.UnicodeScalarView(chars[index...end]))
    }
}

extension String {
    package func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}

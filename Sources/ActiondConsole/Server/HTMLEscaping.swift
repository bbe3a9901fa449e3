import Foundation
import Mustache

/// HTML escaping per Unicode scalar: `&`, `<`, `>`, `"` and `'` become entities wherever they
/// appear, whatever comes before or after them.
///
/// Written by hand because swift-mustache's own escape (2.1) looks characters up per Swift
/// `Character`, a grapheme cluster: a prepended format character (U+0600…U+0605, U+06DD,
/// U+070F, U+0890, U+0891, U+08E2, U+110BD, U+110CD) joins the `<` after it into one
/// cluster, and a combining mark joins the `"` before it, so neither matches its table and
/// both go out raw. An HTML parser reads code points, not clusters, so escaping must too.
package enum HTMLEscaping {
    /// `text` with every one of the five markup characters replaced by its entity.
    package static func escape(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        escaped.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// The name templates use to ask for this escape (`{{% CONTENT_TYPE: ACTIOND_HTML}}`);
    /// `ConsoleTemplates` puts that line at the top of every template, partials included,
    /// since swift-mustache starts each partial over with its own HTML escape.
    package static let contentTypeName = "ACTIOND_HTML"

    /// Registers the content type with swift-mustache (idempotent): before any template that
    /// names it is parsed.
    package static func register() {
        MustacheContentTypes.register(ContentType(), named: contentTypeName)
    }

    /// swift-mustache's hook: every `{{value}}` of a template under this content type goes
    /// through `escape`.
    struct ContentType: MustacheContentType {
        func escapeText(_ text: String) -> String { HTMLEscaping.escape(text) }
    }
}

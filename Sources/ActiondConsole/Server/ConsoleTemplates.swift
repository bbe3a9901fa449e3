import Foundation
import Logging
import Mustache

/// The pages' templates (`Assets/*.mustache`, embedded in the binary), rendered with
/// swift-mustache under the console's own escape (`HTMLEscaping`, per Unicode scalar), which
/// every template is given as its first line. The templates use no triple braces: nothing
/// reaches a page unescaped. Each page is given a view model of its own, which holds
/// no protected field, so no template can print protected text even by mistake.
package struct ConsoleTemplates: Sendable {
    let library: MustacheLibrary

    package init() throws {
        HTMLEscaping.register()
        var library = MustacheLibrary()
        for file in ConsoleAssets.files where file.name.hasSuffix(".mustache") {
            try library.register(ConsoleTemplates.escapePragma + file.text, named: String(file.name.dropLast(".mustache".count)))
        }
        self.library = library
    }

    /// The line that puts a template (and each partial, which swift-mustache starts over with
    /// its own escape) under `HTMLEscaping`.
    static let escapePragma = "{{% CONTENT_TYPE: \(HTMLEscaping.contentTypeName)}}"

    /// The page `name` rendered with `model`.
    package func render(_ name: String, _ model: Any) -> String {
        library.render(model, withTemplate: name) ?? "template \(name) is missing"
    }

    /// A static asset (style sheet, script) by file name.
    static func asset(_ name: String) -> String? {
        ConsoleAssets.files.first { $0.name == name }?.text
    }
}

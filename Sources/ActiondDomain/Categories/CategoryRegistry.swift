import Foundation

/// A validated set of notification categories: what `actiond categories load` stores as one
/// version. Only `CategoryRegistry.parse(_:)` and the initializer make one, and both validate.
package struct CategoryRegistry: Sendable, Hashable {
    /// Banners show only this many actions; categories with more get a note.
    package static let bannerActionLimit = 2
    /// A category may declare at most this many actions.
    package static let maximumActions = 4

    package private(set) var categories: [NotificationCategory]
    /// Custom payload keys each category's notifications must carry, from its handler.
    package private(set) var requiredPayloadKeys: [ExactString: [String]] = [:]

    /// Validates `categories` as a whole against `handlers`; throws every problem at once.
    package init(categories: [NotificationCategory], handlers: CategoryHandlers) throws(CategoryFileError) {
        let problems = CategoryValidator.problems(in: categories, handlers: handlers)
        guard problems.isEmpty else { throw CategoryFileError(problems: problems) }
        self.categories = categories
        for category in categories {
            requiredPayloadKeys[ExactString(category.identifier)] = category.handler.flatMap { handlers.requiredPayloadKeys(of: $0) } ?? []
        }
    }

    private init(unchecked categories: [NotificationCategory]) {
        self.categories = categories
    }

    /// Parses and validates a categories file (JSON: `{"categories": [...]}`); every
    /// handler it names must be one of `handlers`.
    package static func parse(_ data: Data, handlers: CategoryHandlers) throws(CategoryFileError) -> CategoryRegistry {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw CategoryFileError(problems: [CategoryProblem(.root, .invalidJSON, "not valid JSON: \(error)")])
        }
        let (categories, structural) = CategoryFileReader.read(document, handlers: handlers)
        // Value rules are checked on what could be read; a field already reported as missing
        // or mistyped is not reported a second time as empty.
        let reported = structural.map(\.path)
        let values = CategoryValidator.problems(in: categories, handlers: handlers).filter { problem in
            !reported.contains { problem.path.isInside($0) }
        }
        let problems = structural + values
        guard problems.isEmpty else { throw CategoryFileError(problems: problems) }
        return try CategoryRegistry(categories: categories, handlers: handlers)
    }

    /// A registry as stored by a `categories load`, read back by a worker: validated when it
    /// was loaded, possibly by a build with other handlers. A category whose handler this
    /// build lacks is kept as it is; its events fail, naming the handler, until a worker
    /// built with it runs.
    package static func stored(_ data: Data) throws -> CategoryRegistry {
        let document = try JSONDecoder().decode(JSONValue.self, from: data)
        let (categories, problems) = CategoryFileReader.read(document, handlers: nil)
        guard problems.isEmpty else { throw CategoryFileError(problems: problems) }
        return CategoryRegistry(unchecked: categories)
    }

    /// The category `identifier`, compared byte by byte (case-sensitive, no Unicode folding).
    package func category(_ identifier: String) -> NotificationCategory? {
        categories.first { $0.identifier.isExactly(identifier) }
    }

    /// Remarks worth printing after a load, such as categories whose banners will hide actions.
    package var notes: [String] {
        categories.compactMap { category in
            guard category.actions.count > Self.bannerActionLimit else { return nil }
            return "\(category.identifier) has \(category.actions.count) actions; banners show only the first \(Self.bannerActionLimit)"
        }
    }

    /// The registry as a canonical JSON document (sorted keys), stored with each version.
    package func canonicalJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain structs of strings, arrays and integers cannot fail.
        return (try? encoder.encode(CanonicalFile(categories: categories))) ?? Data()
    }

    private struct CanonicalFile: Encodable {
        var categories: [NotificationCategory]
    }
}

import Foundation

/// A validated set of notification categories: what `actiond categories load` stores as one
/// version. Only `CategoryRegistry.parse(_:)` and the initializer make one, and both validate.
public struct CategoryRegistry: Sendable, Hashable {
    /// Banners show only this many actions; categories with more get a note.
    public static let bannerActionLimit = 2
    /// A category may declare at most this many actions.
    public static let maximumActions = 4

    public private(set) var categories: [NotificationCategory]

    /// Validates `categories` as a whole; throws every problem at once.
    public init(categories: [NotificationCategory]) throws(CategoryFileError) {
        let problems = CategoryValidator.problems(in: categories)
        guard problems.isEmpty else { throw CategoryFileError(problems: problems) }
        self.categories = categories
    }

    /// Parses and validates a categories file (JSON: `{"categories": [...]}`).
    public static func parse(_ data: Data) throws(CategoryFileError) -> CategoryRegistry {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw CategoryFileError(problems: [CategoryProblem(.root, .invalidJSON, "not valid JSON: \(error)")])
        }
        let (categories, structural) = CategoryFileReader.read(document)
        // Value rules are checked on what could be read; a field already reported as missing
        // or mistyped is not reported a second time as empty.
        let reported = structural.map(\.path)
        let values = CategoryValidator.problems(in: categories).filter { problem in
            !reported.contains { problem.path.isInside($0) }
        }
        let problems = structural + values
        guard problems.isEmpty else { throw CategoryFileError(problems: problems) }
        return try CategoryRegistry(categories: categories)
    }

    public func category(_ identifier: String) -> NotificationCategory? {
        categories.first { $0.identifier == identifier }
    }

    /// Remarks worth printing after a load, such as categories whose banners will hide actions.
    public var notes: [String] {
        categories.compactMap { category in
            guard category.actions.count > Self.bannerActionLimit else { return nil }
            return "\(category.identifier) has \(category.actions.count) actions; banners show only the first \(Self.bannerActionLimit)"
        }
    }

    /// The registry as a canonical JSON document (sorted keys), stored with each version.
    public func canonicalJSON() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain structs of strings, arrays and integers cannot fail.
        return (try? encoder.encode(CanonicalFile(categories: categories))) ?? Data()
    }

    private struct CanonicalFile: Encodable {
        var categories: [NotificationCategory]
    }
}

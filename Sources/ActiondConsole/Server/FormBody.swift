import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// A POSTed form (`application/x-www-form-urlencoded`, at most 1 MiB): its fields in order,
/// a name possibly repeated (the selected dead letters' `position`).
struct FormBody: Sendable {
    let fields: [(name: String, value: String)]

    static func read(_ request: Request) async throws -> FormBody {
        let buffer = try await request.body.collect(upTo: 1 << 20)
        let text = String(buffer: buffer)
        // Split by hand rather than through URLComponents, whose percentEncodedQuery setter
        // traps on malformed escapes; a malformed field is dropped. Hummingbird's
        // URLEncodedFormDecoder wants a Decodable type, and the selection repeats a name.
        let fields = text.split(separator: "&").compactMap { pair -> (name: String, value: String)? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            return (name, value)
        }
        return FormBody(fields: fields)
    }

    func first(_ name: String) -> String? { fields.first { $0.name == name }?.value }
    func all(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }
    var dictionary: [String: String] { Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }) }
}

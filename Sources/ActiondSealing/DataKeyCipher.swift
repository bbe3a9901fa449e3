import ActiondDomain
import Crypto
import Foundation

/// Seals protected text at rest under one data key: AES-256-GCM with a fresh random 96-bit
/// nonce per seal (swift-crypto), the binding (user, row, field) and the key version as
/// associated data, so text cannot be moved to another user, row or field, nor its version
/// relabelled. Stored as `aead2.<key version>.<base64 of nonce, ciphertext and tag>`.
///
/// `aead1.` values (written before the version was bound) still open, with the binding
/// alone as associated data; nothing writes them any more.
enum DataKeyCipher {
    static let prefix = "aead2."
    static let unversionedPrefix = "aead1."

    static func seal(_ text: String, key: SymmetricKey, version: Int, binding: SealBinding) throws -> String {
        let box = try AES.GCM.seal(Data(text.utf8), using: key, nonce: AES.GCM.Nonce(),
                                   authenticating: associatedData(binding, version: version))
        guard let combined = box.combined else { throw KeyError("AES-GCM gave no combined form") }
        return prefix + String(version) + "." + combined.base64EncodedString()
    }

    /// Whether `sealed` is in an at-rest form of this cipher (either version).
    static func isAtRest(_ sealed: String) -> Bool { sealed.hasPrefix(prefix) || sealed.hasPrefix(unversionedPrefix) }

    /// The key version a sealed value names; nil when it is not in this form.
    static func version(of sealed: String) -> Int? {
        guard isAtRest(sealed) else { return nil }
        let rest = sealed.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: ".") else { return nil }
        return Int(rest[..<dot])
    }

    static func open(_ sealed: String, key: SymmetricKey, binding: SealBinding) throws -> String {
        let rest = sealed.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: "."), let version = Int(rest[..<dot]),
              let combined = Data(base64Encoded: String(rest[rest.index(after: dot)...])) else {
            throw SealedTextUnreadable(reason: "malformed (expected aead2.<version>.<base64>)")
        }
        let authenticated = sealed.hasPrefix(prefix) ? associatedData(binding, version: version) : binding.associatedData
        do {
            let clear = try AES.GCM.open(try AES.GCM.SealedBox(combined: combined), using: key, authenticating: authenticated)
            guard let text = String(data: clear, encoding: .utf8) else { throw SealedTextUnreadable(reason: "not UTF-8") }
            return text
        } catch let error as SealedTextUnreadable {
            throw error
        } catch {
            throw SealedTextUnreadable(reason: "it was sealed for another user, row, field or key version, or altered")
        }
    }

    /// The binding's associated data followed by NUL and the key version.
    static func associatedData(_ binding: SealBinding, version: Int) -> Data {
        var data = binding.associatedData
        data.append(0)
        data.append(contentsOf: Array("key-version \(version)".utf8))
        return data
    }
}

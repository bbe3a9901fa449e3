import ActiondDomain
import Crypto
import Foundation

/// Seals protected text at rest under one data key: AES-256-GCM with a fresh random 96-bit
/// nonce per seal (swift-crypto), the binding (user, row, field) as associated data. Stored as
/// `aead1.<key version>.<base64 of nonce, ciphertext and tag>`.
enum DataKeyCipher {
    static let prefix = "aead1."

    static func seal(_ text: String, key: SymmetricKey, version: Int, binding: SealBinding) throws -> String {
        let box = try AES.GCM.seal(Data(text.utf8), using: key, nonce: AES.GCM.Nonce(), authenticating: binding.associatedData)
        guard let combined = box.combined else { throw KeyError("AES-GCM gave no combined form") }
        return prefix + String(version) + "." + combined.base64EncodedString()
    }

    /// The key version a sealed value names; nil when it is not in this form.
    static func version(of sealed: String) -> Int? {
        guard sealed.hasPrefix(prefix) else { return nil }
        let rest = sealed.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: ".") else { return nil }
        return Int(rest[..<dot])
    }

    static func open(_ sealed: String, key: SymmetricKey, binding: SealBinding) throws -> String {
        let rest = sealed.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: "."), let combined = Data(base64Encoded: String(rest[rest.index(after: dot)...])) else {
            throw SealedTextUnreadable(reason: "malformed (expected aead1.<version>.<base64>)")
        }
        do {
            let clear = try AES.GCM.open(try AES.GCM.SealedBox(combined: combined), using: key, authenticating: binding.associatedData)
            guard let text = String(data: clear, encoding: .utf8) else { throw SealedTextUnreadable(reason: "not UTF-8") }
            return text
        } catch let error as SealedTextUnreadable {
            throw error
        } catch {
            throw SealedTextUnreadable(reason: "it was sealed for another user, row or field, or altered")
        }
    }
}

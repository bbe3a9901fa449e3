import ActiondDomain
import Crypto
import Foundation

/// The key pair producers seal protected text to before it leaves their process (HPKE, RFC
/// 9180: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305, base mode), so that
/// nothing in clear reaches PostgreSQL. A worker opens such text and seals it again under the
/// user's data key.
///
/// A sealed field is `hpke1.<key id>.<enc>.<ciphertext>` (base64url without padding), with
/// info `actiond intake v1` and associated data `user_id NUL id NUL field`, where field is the
/// field's path in `data` (`text`, `payload.aps.alert.body`): text sealed for one event,
/// user or field does not open for another.
public struct IntakeKey: Sendable {
    /// What every field sealed to an intake key starts with.
    public static let prefix = "hpke1."
    static let info = Data("actiond intake v1".utf8)
    static let suite = HPKE.Ciphersuite.Curve25519_SHA256_ChachaPoly

    /// The key's id, named by the fields sealed to it: the first 8 bytes of its public key's SHA-256, hex.
    public let id: String
    let privateKey: Curve25519.KeyAgreement.PrivateKey

    /// A new random key pair.
    public init() {
        privateKey = Curve25519.KeyAgreement.PrivateKey()
        id = Self.keyID(privateKey.publicKey)
    }

    init(rawPrivateKey: Data) throws {
        privateKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: rawPrivateKey)
        id = Self.keyID(privateKey.publicKey)
    }

    var rawPrivateKey: Data { privateKey.rawRepresentation }

    /// The public half, as producers receive it.
    public var publicKey: IntakePublicKey { IntakePublicKey(id: id, key: privateKey.publicKey) }

    /// A short id: the first 8 bytes of the public key's SHA-256, hex.
    static func keyID(_ key: Curve25519.KeyAgreement.PublicKey) -> String {
        SHA256.hash(data: key.rawRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The associated data of one field of one event.
    public static func associatedData(userID: String, eventID: String, field: String) -> Data {
        Data([userID, eventID, field].joined(separator: "\u{0}").utf8)
    }

    /// Opens a field sealed to this key.
    func open(_ sealed: String, userID: String, eventID: String, field: String) throws -> String {
        let parts = sealed.dropFirst(Self.prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let enc = Base64URL.decode(parts[1]), let ciphertext = Base64URL.decode(parts[2]) else {
            throw KeyError("a field sealed to the intake key is malformed (expected hpke1.<key id>.<enc>.<ciphertext>)")
        }
        do {
            var recipient = try HPKE.Recipient(privateKey: privateKey, ciphersuite: Self.suite, info: Self.info, encapsulatedKey: enc)
            let clear = try recipient.open(ciphertext, authenticating: Self.associatedData(userID: userID, eventID: eventID, field: field))
            guard let text = String(data: clear, encoding: .utf8) else { throw KeyError("text sealed to the intake key is not UTF-8") }
            return text
        } catch let error as KeyError {
            throw error
        } catch {
            throw KeyError("a field sealed to the intake key does not open: sealed for another user, event or field, or altered")
        }
    }

    /// The key id a sealed field names.
    static func keyID(of sealed: String) -> String? {
        guard sealed.hasPrefix(prefix) else { return nil }
        return sealed.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false).first.map(String.init)
    }
}

/// The public half of an intake key: what `actiond keys intake-public-key` prints and
/// `actiond.intake_public_key()` returns.
public struct IntakePublicKey: Sendable {
    /// The id of the intake key this is the public half of, as sealed fields name it.
    public let id: String
    let key: Curve25519.KeyAgreement.PublicKey

    init(id: String, key: Curve25519.KeyAgreement.PublicKey) {
        self.id = id
        self.key = key
    }

    /// Reads the `public_key` form (base64url of the raw 32 bytes). The id is the key's
    /// fingerprint, computed here, never taken as given.
    public init(base64URL: String) throws {
        guard let raw = Base64URL.decode(Substring(base64URL)) else { throw KeyError("intake public key: not base64url") }
        key = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw)
        id = IntakeKey.keyID(key)
    }

    /// Reads a document as `document` writes it (and `actiond keys intake-public-key` prints
    /// it). Its `kid` must be the key's fingerprint: a document naming another id is refused.
    public init(document: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any],
              let raw = object["public_key"] as? String else {
            throw KeyError("an intake public key document needs a public_key field (as \(ExecutableName.current) keys intake-public-key prints it)")
        }
        try self.init(base64URL: raw)
        if let kid = object["kid"] as? String, kid != id {
            throw KeyError("an intake public key document names kid \(kid), but its key's fingerprint is \(id)")
        }
    }

    /// The keys of a public key file: one document per line (blank lines skipped).
    public static func read(file path: String) throws -> [IntakePublicKey] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw KeyError("intake public key file \(path) cannot be read (missing, or no permission)")
        }
        let keys = try text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }.map { line in
            do { return try IntakePublicKey(document: String(line)) } catch let error as KeyError {
                throw KeyError("intake public key file \(path): \(error.description)")
            }
        }
        guard !keys.isEmpty else { throw KeyError("intake public key file \(path) holds no key") }
        return keys
    }

    /// The raw key, base64url.
    public var base64URL: String { Base64URL.encode(key.rawRepresentation) }

    /// The JSON document producers read: the key, its id and the HPKE suite.
    public var document: String {
        #"{"kid":"\#(id)","public_key":"\#(base64URL)","kem":"DHKEM(X25519, HKDF-SHA256)","kdf":"HKDF-SHA256","aead":"ChaCha20-Poly1305","info":"actiond intake v1","aad":"user_id NUL id NUL field"}"#
    }

    /// `text` sealed for one field of one event: the value of `<field>_sealed`.
    public func seal(_ text: String, userID: String, eventID: String, field: String) throws -> String {
        var sender = try HPKE.Sender(recipientKey: key, ciphersuite: IntakeKey.suite, info: IntakeKey.info)
        let ciphertext = try sender.seal(Data(text.utf8), authenticating: IntakeKey.associatedData(userID: userID, eventID: eventID, field: field))
        return IntakeKey.prefix + id + "." + Base64URL.encode(sender.encapsulatedKey) + "." + Base64URL.encode(ciphertext)
    }
}

/// Base64 with the URL alphabet and no padding (RFC 4648 section 5). Foundation has only the
/// standard alphabet; this maps between the two.
enum Base64URL {
    static func encode(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }
}

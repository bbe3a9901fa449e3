import ActiondDomain
import Crypto
import Foundation

/// A key file: the KEK (256-bit, random), and the intake key pairs. JSON, mode 0600, written
/// by `actiond keys new FILE` (or, for the embedded database, beside its cluster). The list of
/// forgotten users lives beside it, in `FILE.forgotten` (one JSON object per line).
///
/// Data keys are wrapped with AES-256-GCM under the KEK, bound to their user and version
/// (keys wrapped before that, with RFC 3394 key wrap, still unwrap). The file must be readable
/// by its owner only (mode 0600), as ssh requires of a private key.
public struct KeyFile: KeyProvider {
    /// The key file's path; the list of forgotten users is beside it (`forgottenListPath`).
    public let path: String
    /// The KEK's id (`kek-` and 12 hex digits), stored beside every data key it wraps.
    public let kekID: String
    private let kek: SymmetricKey
    /// During a rolling rotation (`keys rotate`, until `--retire-old`): the older file's KEK,
    /// which this file also holds, so that it unwraps what workers on the older file wrap,
    /// and wraps every new data key under both, so that those workers unwrap its keys too.
    public let retiringKEKID: String?
    private let retiringKEK: SymmetricKey?
    /// The file's intake key pairs, current first, then those carried over from older files.
    public let intakeKeys: [IntakeKey]

    private struct Document: Codable {
        var format: String
        var kekID: String
        var kek: String
        var retiringKEKID: String?
        var retiringKEK: String?
        var intake: [String]

        enum CodingKeys: String, CodingKey {
            case format, kekID = "kek_id", kek, retiringKEKID = "retiring_kek_id", retiringKEK = "retiring_kek", intake
        }
    }

    static let format = "actiond key file v1"

    /// Reads the key file at `path`.
    public init(path: String) throws {
        self.path = path
        let data = try PrivateFile.read(path, what: "key file", missingIsEmpty: false) ?? Data()
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw KeyError("key file \(path) is not an actiond key file (write one with \(ExecutableName.current) keys new FILE)")
        }
        guard document.format == Self.format, let kekBytes = Data(base64Encoded: document.kek), kekBytes.count == 32 else {
            throw KeyError("key file \(path) is not an actiond key file of this version, or its KEK is not 256 bits")
        }
        kekID = document.kekID
        kek = SymmetricKey(data: kekBytes)
        if let id = document.retiringKEKID, let raw = document.retiringKEK {
            guard let bytes = Data(base64Encoded: raw), bytes.count == 32 else { throw KeyError("key file \(path): its retiring KEK is not 256 bits") }
            retiringKEKID = id
            retiringKEK = SymmetricKey(data: bytes)
        } else {
            retiringKEKID = nil
            retiringKEK = nil
        }
        intakeKeys = try document.intake.map { raw in
            guard let bytes = Data(base64Encoded: raw) else { throw KeyError("key file \(path): an intake key is not base64") }
            return try IntakeKey(rawPrivateKey: bytes)
        }
        guard !intakeKeys.isEmpty else { throw KeyError("key file \(path) has no intake key") }
    }

    /// Writes a new key file (random KEK, new intake key) at `path`, mode 0600; refuses to
    /// overwrite one. `keepingIntakeKeys`: intake keys carried over from an older file (after
    /// the new one's), so text sealed to them still opens.
    @discardableResult
    public static func create(at path: String, keepingIntakeKeys kept: [IntakeKey] = []) throws -> KeyFile {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw KeyError("\(path) exists already; a key file is never overwritten (destroying a KEK makes every key it wraps unreadable)")
        }
        let kekID = "kek-" + SHA256.hash(data: Data(UUID().uuidString.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        let document = Document(format: format, kekID: kekID, kek: Self.base64(SymmetricKey(size: .bits256)),
                                intake: ([IntakeKey()] + kept).map { $0.rawPrivateKey.base64EncodedString() })
        try PrivateFile.write(try Self.encode(document), to: path)
        return try KeyFile(path: path)
    }

    /// Adds `keys` to this file's intake keys (after its own), rewriting it in place (its
    /// owner and mode kept).
    public func addingIntakeKeys(_ keys: [IntakeKey]) throws -> KeyFile {
        let known = Set(intakeKeys.map(\.id))
        let added = keys.filter { !known.contains($0.id) }
        guard !added.isEmpty else { return self }
        return try rewritten(intake: intakeKeys + added, retiring: retiringKEKID.flatMap { id in retiringKEK.map { (id, $0) } })
    }

    /// This file holding `older`'s KEK as its retiring one (`keys rotate`).
    public func retiring(_ older: KeyFile) throws -> KeyFile {
        guard older.kekID != kekID else { throw KeyError("key file \(older.path) and \(path) hold the same KEK: a rotation needs a new file (\(ExecutableName.current) keys new FILE)") }
        if retiringKEKID == older.kekID { return self }
        guard retiringKEKID == nil else {
            throw KeyError("key file \(path) is still retiring KEK \(retiringKEKID ?? ""): finish that rotation (\(ExecutableName.current) keys rotate --retire-old) first")
        }
        return try rewritten(intake: intakeKeys, retiring: (older.kekID, older.kek))
    }

    /// This file without its retiring KEK (`keys rotate --retire-old`).
    public func withoutRetiringKEK() throws -> KeyFile {
        guard retiringKEKID != nil else { return self }
        return try rewritten(intake: intakeKeys, retiring: nil)
    }

    private func rewritten(intake: [IntakeKey], retiring: (id: String, key: SymmetricKey)?) throws -> KeyFile {
        let document = Document(format: Self.format, kekID: kekID, kek: Self.base64(kek), retiringKEKID: retiring?.id,
                                retiringKEK: retiring.map { Self.base64($0.key) }, intake: intake.map { $0.rawPrivateKey.base64EncodedString() })
        try PrivateFile.replace(try Self.encode(document), at: path)
        return try KeyFile(path: path)
    }

    private static func base64(_ key: SymmetricKey) -> String { key.withUnsafeBytes { Data($0) }.base64EncodedString() }

    private static func encode(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(document)
    }

    /// The first byte of a bound wrapping: AES-256-GCM under the KEK, the user and version as
    /// associated data. (An unbound wrapping, RFC 3394 key wrap from before, is 40 bytes and
    /// still unwraps; `keys rotate` rewraps it bound.)
    static let boundWrapping: UInt8 = 2

    /// `dataKey` wrapped under this file's KEK, bound to `userID` and `version` (AES-GCM, a
    /// fresh random nonce per wrap).
    public func wrap(_ dataKey: SymmetricKey, userID: String, version: Int) async throws -> Data {
        try Self.wrap(dataKey, under: kek, userID: userID, version: version)
    }

    /// During a rolling rotation, `dataKey` wrapped under the retiring KEK too.
    public func retiringWrap(_ dataKey: SymmetricKey, userID: String, version: Int) async throws -> (kekID: String, wrapped: Data)? {
        guard let retiringKEKID, let retiringKEK else { return nil }
        return (retiringKEKID, try Self.wrap(dataKey, under: retiringKEK, userID: userID, version: version))
    }

    /// Whether this file holds KEK `kekID` (its own, or the one it is retiring).
    public func holds(kekID: String) -> Bool { kekID == self.kekID || kekID == retiringKEKID }

    /// `wrapped` unwrapped with this file's KEK (or its retiring one); a `KeyError` when
    /// `kekID` is another KEK, or the wrapping was altered or made for another user or version.
    public func unwrap(_ wrapped: Data, kekID: String, userID: String, version: Int) async throws -> SymmetricKey {
        let key: SymmetricKey
        if kekID == self.kekID {
            key = kek
        } else if kekID == retiringKEKID, let retiringKEK {
            key = retiringKEK
        } else {
            throw KeyError("a data key is wrapped under KEK \(kekID), which key file \(path) (KEK \(self.kekID)) does not hold")
        }
        do {
            if wrapped.first == Self.boundWrapping && wrapped.count == 61 {
                let box = try AES.GCM.SealedBox(combined: wrapped.dropFirst())
                return SymmetricKey(data: try AES.GCM.open(box, using: key, authenticating: Self.wrapBinding(userID: userID, version: version)))
            }
            return try AES.KeyWrap.unwrap(wrapped, using: key)
        } catch {
            throw KeyError("a data key wrapped under KEK \(kekID) does not unwrap with key file \(path): it was altered, or moved from another user or version")
        }
    }

    private static func wrap(_ dataKey: SymmetricKey, under kek: SymmetricKey, userID: String, version: Int) throws -> Data {
        let box = try dataKey.withUnsafeBytes { bytes in
            try AES.GCM.seal(Data(bytes), using: kek, nonce: AES.GCM.Nonce(), authenticating: Self.wrapBinding(userID: userID, version: version))
        }
        guard let combined = box.combined else { throw KeyError("AES-GCM gave no combined form") }
        return Data([Self.boundWrapping]) + combined
    }

    static func wrapBinding(userID: String, version: Int) -> Data {
        Data((["actiond-key-wrap-v2", userID, String(version)]).joined(separator: "\u{0}").utf8)
    }

    /// The intake keys as the file holds them now (read again).
    public func currentIntakeKeys() throws -> [IntakeKey] { try KeyFile(path: path).intakeKeys }

    /// `FILE.forgotten`.
    public var forgottenListPath: String { path + ".forgotten" }

    /// The users in `FILE.forgotten`, each as its latest line records it, in the order first
    /// forgotten; none when the list does not exist. Users are told apart byte for byte, as
    /// everywhere in actiond: "jos\u{e9}" and "jose\u{301}" are two people.
    public func forgottenUsers() async throws -> [ForgottenUser] {
        // Fail closed: a list that exists but cannot be read is never taken for an empty one
        // (a restored backup would bring forgotten people back).
        guard let data = try PrivateFile.read(forgottenListPath, what: "forgotten list", missingIsEmpty: true) else { return [] }
        var latest: [ExactString: ForgottenUser] = [:]
        var order: [ExactString] = []
        for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            let user = try JSONDecoder().decode(ForgottenUser.self, from: Data(line))
            let id = ExactString(user.userID)
            if latest[id] == nil { order.append(id) }
            latest[id] = user
        }
        return order.compactMap { latest[$0] }
    }

    /// Appends one line and syncs it to disk before returning.
    public func record(_ forgotten: ForgottenUser) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var line = try encoder.encode(forgotten)
        line.append(UInt8(ascii: "\n"))
        try PrivateFile.append(line, to: forgottenListPath, ownerLike: path)
    }
}


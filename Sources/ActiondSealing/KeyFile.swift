import ActiondDomain
import Crypto
import Foundation

/// A key file: the KEK (256-bit, random), and the intake key pairs. JSON, mode 0600, written
/// by `actiond keys new FILE` (or, for the embedded database, beside its cluster). The list of
/// forgotten users lives beside it, in `FILE.forgotten` (one JSON object per line).
///
/// Data keys are wrapped with AES key wrap (RFC 3394, swift-crypto's `AES.KeyWrap`).
public struct KeyFile: KeyProvider {
    /// The key file's path; the list of forgotten users is beside it (`forgottenListPath`).
    public let path: String
    /// The KEK's id (`kek-` and 12 hex digits), stored beside every data key it wraps.
    public let kekID: String
    private let kek: SymmetricKey
    /// The file's intake key pairs, current first, then those carried over from older files.
    public let intakeKeys: [IntakeKey]

    private struct Document: Codable {
        var format: String
        var kekID: String
        var kek: String
        var intake: [String]

        enum CodingKeys: String, CodingKey {
            case format, kekID = "kek_id", kek, intake
        }
    }

    static let format = "actiond key file v1"

    /// Reads the key file at `path`.
    public init(path: String) throws {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyError("key file \(path) cannot be read (missing, or no permission)")
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw KeyError("key file \(path) is not an actiond key file (write one with actiond keys new FILE)")
        }
        guard document.format == Self.format, let kekBytes = Data(base64Encoded: document.kek), kekBytes.count == 32 else {
            throw KeyError("key file \(path) is not an actiond key file of this version, or its KEK is not 256 bits")
        }
        kekID = document.kekID
        kek = SymmetricKey(data: kekBytes)
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
        let kek = SymmetricKey(size: .bits256)
        let kekID = "kek-" + SHA256.hash(data: Data(UUID().uuidString.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
        let intake = [IntakeKey()] + kept
        let document = Document(format: format, kekID: kekID, kek: kek.withUnsafeBytes { Data($0) }.base64EncodedString(),
                                intake: intake.map { $0.rawPrivateKey.base64EncodedString() })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFile.write(try encoder.encode(document), to: path)
        return try KeyFile(path: path)
    }

    /// Adds `keys` to this file's intake keys (after its own), rewriting it in place.
    public func addingIntakeKeys(_ keys: [IntakeKey]) throws -> KeyFile {
        let known = Set(intakeKeys.map(\.id))
        let added = keys.filter { !known.contains($0.id) }
        guard !added.isEmpty else { return self }
        let document = Document(format: Self.format, kekID: kekID, kek: kek.withUnsafeBytes { Data($0) }.base64EncodedString(),
                                intake: (intakeKeys + added).map { $0.rawPrivateKey.base64EncodedString() })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFile.replace(try encoder.encode(document), at: path)
        return try KeyFile(path: path)
    }

    /// `dataKey` wrapped under this file's KEK with AES key wrap.
    public func wrap(_ dataKey: SymmetricKey) async throws -> Data {
        try AES.KeyWrap.wrap(dataKey, using: kek)
    }

    /// `wrapped` unwrapped with this file's KEK; a `KeyError` when `kekID` is another KEK or the
    /// wrapped key was altered.
    public func unwrap(_ wrapped: Data, kekID: String) async throws -> SymmetricKey {
        guard kekID == self.kekID else {
            throw KeyError("a data key is wrapped under KEK \(kekID), which key file \(path) (KEK \(self.kekID)) does not hold")
        }
        do {
            return try AES.KeyWrap.unwrap(wrapped, using: kek)
        } catch {
            throw KeyError("a data key wrapped under KEK \(kekID) does not unwrap with key file \(path): it was altered")
        }
    }

    /// `FILE.forgotten`.
    public var forgottenListPath: String { path + ".forgotten" }

    /// The users in `FILE.forgotten`, each as its latest line records it, in the order first
    /// forgotten; none when the list does not exist. Users are told apart byte for byte, as
    /// everywhere in actiond: "jos\u{e9}" and "jose\u{301}" are two people.
    public func forgottenUsers() async throws -> [ForgottenUser] {
        guard let data = FileManager.default.contents(atPath: forgottenListPath) else { return [] }
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
        try PrivateFile.append(line, to: forgottenListPath)
    }
}

/// Files only their owner may read: created 0600, written whole then renamed, synced.
enum PrivateFile {
    static func write(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw KeyError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try writeAll(data, fd: fd, path: path)
    }

    static func replace(_ data: Data, at path: String) throws {
        let temporary = path + ".new"
        unlink(temporary)
        try write(data, to: temporary)
        guard rename(temporary, path) == 0 else { throw KeyError("cannot replace \(path): \(String(cString: strerror(errno)))") }
    }

    static func append(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { throw KeyError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try writeAll(data, fd: fd, path: path)
    }

    private static func writeAll(_ data: Data, fd: Int32, path: String) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw KeyError("cannot write \(path): \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
        guard fsync(fd) == 0 else { throw KeyError("cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}

import Foundation
import HummingbirdBcrypt
import Logging

/// The console's users file (`actiond console users add|remove|list`): names, roles and
/// bcrypt hashes (salted, cost 12), as JSON, written with mode 0600 and refused when group or
/// others may read it. Passwords are never stored or printed. A running console reads it
/// through `ConsoleUsersFile`, again whenever it changes.
package struct ConsoleUsers: Sendable {
    /// An operator's account: a sign-in name, a role and a password's hash.
    package struct Account: Codable, Sendable, Equatable {
        package var name: String
        package var role: ConsoleRole
        package var passwordHash: String

        enum CodingKeys: String, CodingKey {
            case name, role
            case passwordHash = "password_hash"
        }
    }

    private struct File: Codable {
        var users: [Account]
    }

    package private(set) var users: [Account]

    package init(users: [Account] = []) { self.users = users }

    /// The file at `path`; an absent file is an empty list (`exists` tells which). A file that
    /// group or others may read is refused, as ssh refuses a private key: it holds password
    /// hashes, which can be guessed at offline.
    package static func load(_ path: String) throws -> ConsoleUsers {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return ConsoleUsers() }
            throw ConsoleUsersError.unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ConsoleUsersError.readableByOthers(path: path, mode: String(info.st_mode & 0o777, radix: 8))
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConsoleUsersError.unreadable(path: path, reason: "\(error.localizedDescription)")
        }
        do {
            return ConsoleUsers(users: try JSONDecoder().decode(File.self, from: data).users)
        } catch {
            throw ConsoleUsersError.unreadable(path: path, reason: "it is not a users file ({\"users\": [...]}): \(error)")
        }
    }

    /// Writes the file (mode 0600, replaced atomically).
    package func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(File(users: users))
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ConsoleUsersError.unwritable(path: path)
        }
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw ConsoleUsersError.unwritable(path: path)
        }
    }

    /// Adds an operator, or changes their role and password.
    package mutating func add(name: String, role: ConsoleRole, password: String, cost: UInt8 = 12) throws {
        if let problem = ConsoleUsers.nameProblem(name) { throw ConsoleUsersError.invalidName(problem) }
        if let problem = ConsoleUsers.passwordProblem(password) { throw ConsoleUsersError.invalidPassword(problem) }
        let user = Account(name: name, role: role, passwordHash: Bcrypt.hash(password, cost: cost))
        if let index = users.firstIndex(where: { $0.name == name }) {
            users[index] = user
        } else {
            users.append(user)
            users.sort { $0.name < $1.name }
        }
    }

    /// Removes an operator; false when there was none of that name.
    package mutating func remove(name: String) -> Bool {
        let before = users.count
        users.removeAll { $0.name == name }
        return users.count < before
    }

    package func account(named name: String) -> Account? {
        users.first { $0.name == name }
    }

    /// The operator, when the password is theirs. A name that is not listed costs a hash check
    /// too, so the answer's time does not tell which names exist.
    package func verify(name: String, password: String) -> ConsoleOperator? {
        guard let user = account(named: name) else {
            _ = Bcrypt.verify(password, hash: ConsoleUsers.decoyHash)
            return nil
        }
        return Bcrypt.verify(password, hash: user.passwordHash) ? ConsoleOperator(name: user.name, role: user.role) : nil
    }

    private static let decoyHash = Bcrypt.hash("not a password anyone has", cost: 12)

    /// Why a name is refused, or nil: 1 to 64 characters, letters, digits and `.-_@`.
    package static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "name: must not be empty" }
        if name.count > 64 { return "name: at most 64 characters" }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_@"))
        if !name.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) {
            return "name: only ASCII letters, digits and . - _ @"
        }
        return nil
    }

    /// Why a password is refused, or nil: 10 to 72 bytes (bcrypt reads no more).
    package static func passwordProblem(_ password: String) -> String? {
        if password.utf8.count < 10 { return "password: at least 10 characters" }
        if password.utf8.count > 72 { return "password: at most 72 bytes (bcrypt reads no more)" }
        return nil
    }
}

package enum ConsoleUsersError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unwritable(path: String)
    case readableByOthers(path: String, mode: String)
    case invalidName(String)
    case invalidPassword(String)

    package var description: String {
        switch self {
        case .unreadable(let path, let reason): "the console's users file \(path) cannot be read: \(reason)"
        case .unwritable(let path): "the console's users file \(path) cannot be written"
        case .readableByOthers(let path, let mode):
            "the console's users file \(path) may be read by group or others (mode \(mode)); it must be readable by its owner only: run chmod 600 \(path); it is refused until then"
        case .invalidName(let problem), .invalidPassword(let problem): problem
        }
    }
}

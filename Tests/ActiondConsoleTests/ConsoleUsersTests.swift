@testable import ActiondConsole
import Foundation
import Logging
import Testing

@Suite("The console's users file")
struct ConsoleUsersTests {
    /// A users file with ana (operator) and bo, both with one password, saved at a new path.
    private func savedFile(boRole: ConsoleRole) throws -> (String, ConsoleUsers) {
        let path = temporaryPath()
        var users = ConsoleUsers()
        try users.add(name: "ana", role: .operator, password: "correct horse battery", cost: 4)
        try users.add(name: "bo", role: boRole, password: "correct horse battery", cost: 4)
        try users.save(to: path)
        return (path, users)
    }

    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appending(path: "console-users-\(UUID().uuidString)/users.json").path
    }

    @Test func aPersonSignsInWithTheirPasswordOnly() throws {
        var users = ConsoleUsers()
        try users.add(name: "ana", role: .operator, password: "correct horse battery", cost: 4)
        #expect(users.verify(name: "ana", password: "correct horse battery") == ConsoleOperator(name: "ana", role: .operator))
        #expect(users.verify(name: "ana", password: "correct horse batterY") == nil)
        #expect(users.verify(name: "Ana", password: "correct horse battery") == nil, "names are case-sensitive")
        #expect(users.verify(name: "bob", password: "correct horse battery") == nil)
    }

    @Test func theFileHoldsSaltedSlowHashesNeverThePasswordAndOnlyItsOwnerReadsIt() throws {
        let (path, _) = try savedFile(boRole: .viewer)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("correct horse"))
        let reloaded = try ConsoleUsers.load(path)
        let hashes = reloaded.users.map(\.passwordHash)
        #expect(hashes.count == 2 && hashes[0] != hashes[1], "the same password hashes differently: salted")
        #expect(hashes.allSatisfy { $0.hasPrefix("$2b$04$") || $0.hasPrefix("$2a$04$") || $0.hasPrefix("$2y$04$") }, "bcrypt: \(hashes)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "mode \(String(mode, radix: 8))")
        #expect(reloaded.verify(name: "bo", password: "correct horse battery")?.role == .viewer)
    }

    @Test func addingAgainChangesRoleAndPasswordAndRemoveEndsIt() throws {
        var users = ConsoleUsers()
        try users.add(name: "ana", role: .viewer, password: "first password", cost: 4)
        try users.add(name: "ana", role: .operator, password: "second password", cost: 4)
        #expect(users.users.count == 1)
        #expect(users.verify(name: "ana", password: "first password") == nil)
        #expect(users.verify(name: "ana", password: "second password")?.role == .operator)
        #expect(users.remove(name: "ana") && !users.remove(name: "ana"))
        #expect(users.verify(name: "ana", password: "second password") == nil)
    }

    @Test(arguments: ["", "аna", "ana smith", "<script>", String(repeating: "a", count: 65), "ana\u{0}"])
    func namesOutsideTheRuleAreRefused(name: String) {
        var users = ConsoleUsers()
        #expect(throws: ConsoleUsersError.self) { try users.add(name: name, role: .viewer, password: "long enough password", cost: 4) }
        #expect(users.users.isEmpty)
    }

    @Test(arguments: ["short", String(repeating: "p", count: 73)])
    func passwordsOutsideTheRuleAreRefused(password: String) {
        var users = ConsoleUsers()
        #expect(throws: ConsoleUsersError.self) { try users.add(name: "ana", role: .viewer, password: password, cost: 4) }
    }

    @Test func aMissingFileIsNobodyAndAMalformedOneIsRefusedNamingIt() throws {
        #expect(try ConsoleUsers.load("/nonexistent/users.json").users.isEmpty)
        let path = temporaryPath()
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect { try ConsoleUsers.load(path) } throws: { "\($0)".contains(path) && "\($0)".contains("not a users file") }
    }

    @Test func aFileGroupOrOthersMayReadIsRefusedNamingItAndTheRule() throws {
        let path = temporaryPath()
        var users = ConsoleUsers()
        try users.add(name: "ana", role: .operator, password: "correct horse battery", cost: 4)
        try users.save(to: path)
        for mode in [0o644, 0o640, 0o604] as [mode_t] {
            chmod(path, mode)
            #expect { try ConsoleUsers.load(path) } throws: {
                "\($0)".contains(path) && "\($0)".contains("may be read by group or others (mode \(String(mode, radix: 8)))") && "\($0)".contains("chmod 600")
            }
        }
        chmod(path, 0o600)
        #expect(try ConsoleUsers.load(path).users.count == 1)
    }

    @Test func theFileIsReadAgainWhenItChangesAndRefusedWhileOthersMayReadIt() throws {
        let (path, saved) = try savedFile(boRole: .operator)
        var users = saved
        let file = ConsoleUsersFile(path: path, logger: Logger(label: "test"))
        #expect(try file.current().get().account(named: "bo")?.role == .operator)
        // Changed as `console users` changes it: written beside, renamed over.
        _ = users.remove(name: "ana")
        try users.add(name: "bo", role: .viewer, password: "correct horse battery", cost: 4)
        try users.save(to: path)
        #expect(try file.current().get().account(named: "ana") == nil)
        #expect(try file.current().get().account(named: "bo")?.role == .viewer)
        chmod(path, 0o644)
        #expect(throws: ConsoleUsersError.self) { try file.current().get() }
        chmod(path, 0o600)
        #expect(try file.current().get().account(named: "bo")?.role == .viewer)
        // Removed altogether: nobody, never everybody.
        try FileManager.default.removeItem(atPath: path)
        #expect(try file.current().get().users.isEmpty)
    }
}

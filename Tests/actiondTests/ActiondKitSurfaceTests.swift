import ActiondPostgres
import ActiondTestSupport
import Foundation
import Testing

/// What a team's `import ActiondKit` brings: the handler API (CategoryHandler, the set of
/// handlers, the JSON a state is written in, `Actiond.main`), and not the built-in handlers'
/// types, which live in a target of their own that ActiondKit uses without re-exporting.
/// Checked by the compiler itself: a snippet is type-checked against the modules this test
/// run was built with, as a team's package would compile against them.
@Suite("ActiondKit's public surface", .timeLimit(.minutes(2)))
struct ActiondKitSurfaceTests {
    /// The build's module folder (`<build>/Modules`, beside the test binary) and every C
    /// module map the modules need (NIO's, swift-atomics'…), as SwiftPM hands them to swiftc.
    static func compilerArguments() throws -> [String] {
        let build = TestPaths.executable("actiond").deletingLastPathComponent().resolvingSymlinksInPath()
        var arguments = ["-typecheck", "-I", build.appending(path: "Modules").path]
        var maps: [String] = []
        let fileManager = FileManager.default
        // A C target's map sits in its build folder (the host tools' copies, `-tool.build`, left out).
        for entry in try fileManager.contentsOfDirectory(atPath: build.path) where entry.hasSuffix(".build") && !entry.hasSuffix("-tool.build") {
            let path = build.appending(path: entry).appending(path: "module.modulemap").path
            if fileManager.fileExists(atPath: path) { maps.append(path) }
        }
        // C targets of the dependencies keep their module maps in their sources' include folders.
        let checkouts = build.deletingLastPathComponent().deletingLastPathComponent().appending(path: "checkouts")
        if let walker = fileManager.enumerator(atPath: checkouts.path) {
            while let relative = walker.nextObject() as? String {
                if relative.hasSuffix("include/module.modulemap") { maps.append(checkouts.appending(path: relative).path) }
            }
        }
        #expect(!maps.isEmpty, "no module maps under \(build.path)")
        for map in maps { arguments += ["-Xcc", "-fmodule-map-file=\(map)"] }
        return arguments
    }

    /// Type-checks `source` as a file of a team's package; the compiler's status and errors.
    static func typecheck(_ source: String) async throws -> (status: Int32, errors: String) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "actiondkit-surface-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "main.swift")
        try Data(source.utf8).write(to: file)
        let swiftc = URL(fileURLWithPath: "/usr/bin/env")
        let run = try await ProcessRunner.spawn(swiftc, ["swiftc"] + (try compilerArguments()) + [file.path]).exit()
        return (run.status, run.output)
    }

    @Test func aTeamSeesTheHandlerAPIAndNotTheBuiltInHandlers() async throws {
        let api = try await Self.typecheck("""
            import ActiondKit
            func handlers(_ mine: any CategoryHandler) throws -> CategoryHandlers { try CategoryHandlers([mine]) }
            let state: JSONValue = .object(["shipped": .bool(true)])
            let reason = RejectionReason.unknownAction
            let type = EventType(rawValue: "orders.picked_up")
            """)
        #expect(api.status == 0, "the handler API through ActiondKit: \(api.errors)")

        for builtIn in ["MeetingInvitationHandler", "TimerHandler", "MessageThreadHandler", "MessageThreadEvent", "TimerPhase", "InvitationResponse"] {
            let hidden = try await Self.typecheck("""
                import ActiondKit
                let type: Any.Type = \(builtIn).self
                """)
            #expect(hidden.status != 0 && hidden.errors.contains("cannot find '\(builtIn)' in scope"),
                    "\(builtIn) reaches a team through ActiondKit: \(hidden.errors)")
        }
    }
}

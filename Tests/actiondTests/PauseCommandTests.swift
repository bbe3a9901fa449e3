import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// `actiond pause|resume [--user ID]` through the binary (docs/contract.md, "Operating"; issue 14, item 4).
@Suite("actiond pause and resume", .timeLimit(.minutes(3)))
struct PauseCommandTests {
    static func events(_ prefix: String, users: [String], each: Int) -> String {
        users.flatMap { user in
            (0..<each).map { EventLine.json("\(prefix)-\(user)-\($0)", "meeting.cancelled", user: user, data: #"{"meeting_id":"m"}"#) }
        }.joined(separator: "\n")
    }

    static func paused(_ db: TestDatabase) async throws -> Int {
        try await db.scalar("SELECT events FROM actiond.report_queue WHERE status = 'paused'", as: Int.self)
    }

    static func run(_ arguments: [String], _ db: TestDatabase, input: String? = nil) async throws -> ActiondProcess.Result {
        let result = try await ActiondProcess.run(arguments, database: db.url, input: input)
        #expect(result.status == 0, "\(arguments): \(result.standardError)")
        return result
    }

    @Test func oneUsersPauseHoldsOnlyThatUserAndDrainDoesNotWaitForIt() async throws {
        try await TestDatabase.with { db in
            // "ana" spelt with a composed á; "ana\u{301}" with a decomposed one: equal to Swift,
            // two users to actiond (byte-exact ids).
            let ana = "an\u{e1}", lookAlike = "ana\u{301}"
            let pause = try await Self.run(["pause", "--user", ana], db)
            #expect(pause.standardOutput.contains("paused this user's events"), "\(pause.standardOutput)")
            #expect(try await Self.run(["pause", "--user", ana], db).standardOutput.contains("already paused"))
            _ = try await Self.run(["submit", "-"], db, input: Self.events("a", users: [ana, "bob", lookAlike], each: 5))

            // --drain returns although ana's events wait; bob's and the look-alike user's are done.
            _ = try await Self.run(["work", "--drain"], db)
            #expect(try await db.outcomes(user: ana).count == 0)
            #expect(try await db.outcomes(user: "bob").count == 5)
            #expect(try await db.outcomes(user: lookAlike).count == 5, "a look-alike id is another user")

            // A reader login reads report_queue with paused events in it (the view reads
            // actiond.pauses as its owner).
            try await RoleTests.withLogin("actiond_reader", on: db) { reader in
                let read = try await ActiondProcess.run(["report", "queue", "--format", "csv"], database: reader)
                #expect(read.status == 0 && read.standardOutput.contains("paused,5,"), "\(read.standardError)")
            }
            #expect(try await Self.paused(db) == 5)
            #expect(try await db.scalar("SELECT events FROM actiond.report_queue WHERE status = 'queued'", as: Int.self) == 0)
            let report = try await Self.run(["report", "queue", "--format", "csv"], db)
            #expect(report.standardOutput.contains("paused,5,"), "\(report.standardOutput)")

            // Submit keeps accepting for the paused user.
            let more = try await Self.run(["submit", "-"], db, input: Self.events("b", users: [ana], each: 2))
            #expect(more.standardOutput.contains("2 accepted"), "\(more.standardOutput)")
            #expect(try await Self.paused(db) == 7)

            // The look-alike's resume ends nothing.
            #expect(try await Self.run(["resume", "--user", lookAlike], db).standardOutput.contains("nothing was paused for this user"))
            let resume = try await Self.run(["resume", "--user", ana], db)
            #expect(resume.standardOutput.contains("1 pause ended"), "\(resume.standardOutput)")
            _ = try await Self.run(["work", "--drain"], db)
            #expect(try await db.outcomes(user: ana).count == 7)
            #expect(try await Self.paused(db) == 0)
            try await WorkCommandTests.expectExactlyOnce(db, events: 17)
        }
    }

    @Test func everyonesPauseStopsARunningWorkerAndResumeWakesIt() async throws {
        try await TestDatabase.with { db in
            // A long poll interval: only the resume's wake-up can make the worker look again soon.
            let worker = try ActiondProcess.start(["work", "--poll-interval", "60"], database: db.url)
            _ = try await Self.run(["submit", "-"], db, input: Self.events("before", users: ["ana", "bob"], each: 3))
            #expect(try await eventually { try await WorkCommandTests.count(db, "outcomes") == 6 })

            let pause = try await Self.run(["pause"], db)
            #expect(pause.standardOutput.contains("paused everyone's events"), "\(pause.standardOutput)")
            _ = try await Self.run(["submit", "-"], db, input: Self.events("during", users: ["ana", "bob", "cy"], each: 4))
            try await Task.sleep(for: .seconds(2))
            #expect(try await WorkCommandTests.count(db, "outcomes") == 6, "nothing claimed while everyone is paused")
            #expect(try await Self.paused(db) == 12)
            // A drain with everyone paused has nothing to wait for.
            _ = try await Self.run(["work", "--drain"], db)
            #expect(try await WorkCommandTests.count(db, "outcomes") == 6)

            // A user's resume does not end everyone's pause.
            let one = try await Self.run(["resume", "--user", "ana"], db)
            #expect(one.standardOutput.contains("nothing was paused for this user") && one.standardOutput.contains("everyone is still paused"),
                    "\(one.standardOutput)")
            let started = Date()
            _ = try await Self.run(["resume"], db)
            #expect(try await eventually(10) { try await WorkCommandTests.count(db, "outcomes") == 18 })
            #expect(Date().timeIntervalSince(started) < 10, "woken by the resume, not by a 60 s poll")
            #expect(try await Self.paused(db) == 0)

            worker.send(SIGTERM)
            #expect(try await worker.exit().status == 0)
            try await WorkCommandTests.expectExactlyOnce(db, events: 18)
        }
    }

    @Test func anEmptyUserIsRefused() async throws {
        try await TestDatabase.with { db in
            for command in ["pause", "resume"] {
                let run = try await ActiondProcess.run([command, "--user", ""], database: db.url)
                #expect(run.status != 0 && run.standardError.contains("--user must not be empty"), "\(run.standardError)")
            }
            // The SQL function refuses it too, naming the field.
            await #expect(throws: PSQLError.self) { try await db.client.query("SELECT actiond.pause('')", logger: db.logger).drain() }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
        }
    }

    /// A login without the owner's rights is told in a sentence who may pause, and nothing changes.
    @Test func aNonOwnerIsToldWhoMayPause() async throws {
        try await TestDatabase.with { db in
            try await RoleTests.withLogin("actiond_worker", on: db) { worker in
                for command in [["pause"], ["resume", "--user", "ana"]] {
                    let run = try await ActiondProcess.run(command, database: worker)
                    #expect(run.status != 0)
                    #expect(run.standardError.contains("only the owner may: run it as the role that migrates"), "\(run.standardError)")
                    #expect(!run.standardError.contains(SQLState.insufficientPrivilege.rawValue))
                }
            }
            #expect(try await db.scalar("SELECT count(*) FROM actiond.pauses", as: Int.self) == 0)
        }
    }
}

import ActiondDomain
@testable import ActiondPostgres
import ActiondSealing
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// claim_batch, through WorkQueue.claim as a worker calls it: a batch's events and, in the same
/// round trip, the wrapped keys and fences of the users it claimed, and of no one else; a forget
/// committed after the worker's transaction began is seen; nothing claimed, no keys.
@Suite("The claim brings its users' keys")
struct ClaimBatchTests {
    @Test func theClaimReturnsItsUsersKeysAndFencesAndNoOneElses() async throws {
        try await TestDatabase.with { db in
            for (id, user) in [("c1", "ana"), ("c2", "bob"), ("c3", "ana")] {
                let event = EventJSON.cancelled(id, meeting: "m1").setting(["user_id"], to: .string(user))
                _ = try await db.scalar("SELECT actiond.submit(\(event.json)::jsonb)::text", as: String.self)
            }
            for statement in [
                "INSERT INTO actiond.data_keys (user_id, version, kek_id, wrapped) VALUES ('ana', 1, 'kek-a', '\\x0a01'), ('ana', 2, 'kek-a', '\\x0a02')",
                "INSERT INTO actiond.data_keys (user_id, version, kek_id, wrapped) VALUES ('carl', 1, 'kek-a', '\\x0c01')",
            ] {
                try await db.client.query(PostgresQuery(unsafeSQL: statement), logger: db.logger).drain()
            }
            try await db.client.withConnection { connection in
                try await connection.query("BEGIN", logger: db.logger).drain()
                // bob is forgotten after this transaction began, before its claim.
                try await db.client.query("INSERT INTO actiond.forgotten_users (user_id, through_version) VALUES ('bob', 3)", logger: db.logger).drain()
                let claim = try await WorkQueue.claim(maxUsers: 10, maxEvents: 10, on: connection, logger: db.logger)
                #expect(claim.events.map(\.id) == ["c1", "c2", "c3"])
                #expect(claim.categoryVersion != nil && claim.databaseNow != nil)
                #expect(claim.keys.map { "\($0.userID):\($0.version):\($0.kekID):\([UInt8]($0.wrapped))" }.sorted()
                        == ["ana:1:kek-a:[10, 1]", "ana:2:kek-a:[10, 2]"])
                #expect(claim.fences == [ForgottenUser(userID: "bob", throughVersion: 3, newKeyAllowed: false)])

                // Another worker meanwhile claims nothing, and reads no keys.
                try await db.client.withConnection { other in
                    try await other.query("BEGIN", logger: db.logger).drain()
                    let nothing = try await WorkQueue.claim(maxUsers: 10, maxEvents: 10, on: other, logger: db.logger)
                    #expect(nothing.events.isEmpty && nothing.keys.isEmpty && nothing.fences.isEmpty)
                    try await other.query("ROLLBACK", logger: db.logger).drain()
                }
                try await connection.query("ROLLBACK", logger: db.logger).drain()
            }
        }
    }
}

import ActiondRuntime
import ActiondPostgres
import ActiondSealing
import Logging
import PostgresNIO

/// `actiond keys rotate`: wraps every data key under a new KEK, page by page, beside its old
/// wrapping, without touching sealed text. Resumable: each page commits, and a key that has a
/// wrapping under the new KEK is skipped. A key that does not unwrap (damaged, or wrapped under
/// a KEK the old file does not hold) is passed over and reported by its user, never by its
/// bytes: every other key is rewrapped, and a rerun tries the passed-over ones again.
package struct KeyRotation: Sendable {
    /// What a rotation pass did.
    package struct Summary: Sendable, Equatable {
        /// Keys wrapped anew under the new KEK (when only checking: keys that would be).
        package var rewrapped = 0
        /// Keys that did not unwrap, by user and version, in key order.
        package var unopened: [NotRewrapped.Key] = []
    }

    let client: PostgresClient
    let from: any KeyProvider
    let to: any KeyProvider
    let pageSize: Int
    let logger: Logger

    package init(client: PostgresClient, from: any KeyProvider, to: any KeyProvider, pageSize: Int = 1000, logger: Logger) {
        self.client = client
        self.from = from
        self.to = to
        self.pageSize = pageSize
        self.logger = logger
    }

    /// `writing` false: changes nothing, and counts what a rotation would rewrap (a key under a
    /// KEK `from` does not hold counts there too: a rotation with the old key file rewraps it).
    package func run(writing: Bool = true) async throws -> Summary {
        var after = (user: "", version: 0)
        var summary = Summary()
        while true {
            let page = try await KeyStore.keysToRewrap(kekID: to.kekID, after: after, page: pageSize, client: client, logger: logger)
            guard let last = page.last else { break }
            var rewrapped: [StoredDataKey] = []
            for key in page {
                if !writing && !from.holds(kekID: key.kekID) {
                    summary.rewrapped += 1
                    continue
                }
                guard let dataKey = try? await from.unwrap(key.wrapped, kekID: key.kekID, userID: key.userID, version: key.version) else {
                    summary.unopened.append(.init(userID: key.userID, version: key.version, kekID: key.kekID))
                    continue
                }
                rewrapped.append(StoredDataKey(userID: key.userID, version: key.version, kekID: to.kekID,
                                               wrapped: try await to.wrap(dataKey, userID: key.userID, version: key.version)))
            }
            if !writing {
                summary.rewrapped += rewrapped.count
            } else if !rewrapped.isEmpty {
                summary.rewrapped += try await KeyStore.addWrappings(rewrapped, kekID: to.kekID, client: client, logger: logger)
            }
            after = (last.userID, last.version)
            // Counts only: user ids stay out of the log.
            logger.info("keys rewrapped", metadata: ["keys": "\(summary.rewrapped)", "not_unwrapped": "\(summary.unopened.count)"])
        }
        return summary
    }
}

/// Keys a rotation could not rewrap, because they do not unwrap with the old KEK: named by user
/// and version (never by a byte of the key), with what the operator can do. The rotation
/// rewrapped every other key; the old KEK cannot be retired while these keys exist.
package struct NotRewrapped: Error, CustomStringConvertible {
    package struct Key: Sendable, Equatable {
        package var userID: String
        package var version: Int
        package var kekID: String
    }

    package var keys: [Key]
    /// What to run once they are dealt with.
    package var rerun: String
    /// The binary's name, for the forget command.
    package var executable: String

    package init(keys: [Key], executable: String, rerun: String) {
        self.keys = keys
        self.rerun = rerun
        self.executable = executable
    }

    /// Users, each once, in key order.
    package var userIDs: [String] {
        var seen: Set<String> = []
        return keys.map(\.userID).filter { seen.insert($0).inserted }
    }

    static let shown = 50

    package var description: String {
        let users = userIDs
        let listed = users.prefix(Self.shown).map { user in
            let versions = keys.filter { $0.userID == user }
            return "\(user.debugDescription) (key version \(versions.map { "\($0.version) under \($0.kekID)" }.joined(separator: ", ")))"
        }
        let more = users.count > Self.shown ? " and \(users.count - Self.shown) more" : ""
        return "the data keys of \(users.count) user(s) do not unwrap with the old KEK, so they were not rewrapped (every other key was): "
            + listed.joined(separator: ", ") + more
            + ". The old KEK cannot be retired while they exist. For each: forget the user (\(executable) forget USER: their text becomes"
            + " unreadable, as it already is), or restore their actiond.data_keys rows from a backup; then run \(rerun)."
            + " (Configured with the wrong old key file? Every key then fails: check --key-file.)"
    }
}

import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ArgumentParser
import Logging
import PostgresNIO

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Key files, the intake public key, and KEK rotation.",
        subcommands: [New.self, IntakePublicKey.self, Rotate.self, Reseal.self])

    struct New: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Write a new key file (a random 256-bit KEK and an intake key pair), mode 0600. Never overwrites one.")

        @Argument(help: "Where to write it: keep it off the database's host and out of its backups.") var file: String

        func run() async throws {
            let keyFile = try KeyFile.create(at: file)
            print("wrote \(file) (KEK \(keyFile.kekID), intake key \(keyFile.intakeKeys[0].id)); run workers with --key-file \(file) or ACTIOND_KEY_FILE")
        }
    }

    struct IntakePublicKey: AsyncParsableCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(
            commandName: "intake-public-key",
            abstract: "Print the public key producers seal protected text to (HPKE), as JSON.",
            discussion: """
                Save it to a file and hand it to producers: \(Installed.commandName) submit --intake-key FILE seals only to the keys in \
                it (one per line; --all prints every key the file holds, current first, for a rotation). The key id \
                (kid) is the key's fingerprint. migrate, run by the owner, also publishes it in the database \
                (SELECT actiond.intake_public_key()); producers use that one only when it is a key they were given.
                """) }

        @OptionGroup var options: GlobalOptions
        @Flag(help: "Print every intake key the key file holds (its own, then those carried from older files), one per line.")
        var all = false

        func run() async throws {
            let logger = try options.makeLogger()
            let keys = try options.keyRing(command: "keys intake-public-key", logger: logger)
            guard let key = keys.provider.intakeKeys.first else { throw ValidationError("the key file has no intake key") }
            for intake in all ? keys.provider.intakeKeys : [key] { print(intake.publicKey.document) }
        }
    }

    struct Reseal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reseal",
            abstract: "Seal every protected text still in clear (stored before sealing existed) in the log, the stash and the domain events.",
            discussion: """
                Page by page, each page in its own transaction under its users' locks: safe while workers run, and \
                resumable (run it again after an interruption: it finds what is left). A forgotten person's text is \
                rewritten as forgotten. Prints its progress on standard error and a summary per table.
                """)

        @OptionGroup var options: GlobalOptions
        @Option(help: "Rows per transaction.") var pageSize: Int = 500

        func validate() throws {
            guard (1...10_000).contains(pageSize) else { throw ValidationError("--page-size must be from 1 to 10000") }
        }

        func run() async throws {
            let logger = try options.makeLogger()
            let keys = try options.keyRing(command: "keys reseal", logger: logger)
            try await Database.withClient(options.database(command: "keys reseal"), logger: logger) { client, _ in
                try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
                let resealing = Resealing(client: client, keys: keys, router: EventRouter(handlers: Installed.handlers), pageSize: pageSize, logger: logger)
                let passes = try await resealing.run { progress in
                    printError("\(progress.table): \(progress.scanned) rows read, \(progress.rewritten) sealed")
                }
                for pass in passes {
                    print("\(pass.table): \(pass.scanned) rows read, \(pass.rewritten) sealed" + (pass.skipped > 0 ? ", \(pass.skipped) left (their text does not open: see \(Installed.commandName) report dead_letters)" : ""))
                }
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Move every data key to a new KEK, with workers on the old and the new key file side by side; with --retire-old, finish.",
            discussion: """
                Run with the old key file configured. Sealed text is not touched. The new file gets the old KEK as its \
                retiring one (its workers wrap new data keys under both, and unwrap either), the two files get each \
                other's intake keys, every data key is wrapped under the new KEK beside its old wrapping, the forgotten \
                list is copied, and the new intake key is published. Resumable: run it again and it wraps what is left \
                (keys made meanwhile by workers on the old file). A key that does not unwrap is passed over and its \
                user named (never the key): every other key is rewrapped, and the command exits non-zero. Then restart \
                every worker with --key-file NEW, run rotate once more, then rotate --retire-old: it refuses while a \
                worker runs on another KEK or a key lacks its new wrapping (naming the users whose keys do not unwrap: \
                forget them, or restore their keys from a backup), then removes the old KEK from NEW and refuses, naming \
                them, while a worker still holds it (started from NEW before): restart every worker with NEW once more \
                and run --retire-old again. It then deletes the old wrappings and records the old KEK as retired (no \
                wrapping under it is stored again). Destroy the old key file: backups taken before that stay readable \
                only with the old KEK.
                """)

        @OptionGroup var options: GlobalOptions
        @Option(name: .customLong("new-key-file"), help: "The new key file (\(Installed.commandName) keys new FILE).") var newKeyFile: String
        @Flag(name: .customLong("retire-old"), help: "Delete the wrappings under every other KEK and retire it (refused while a key lacks a new wrapping, or a worker holds another KEK).") var retireOld = false
        @Option(help: "Keys rewrapped per statement.") var pageSize: Int = 1000

        /// Records in `new`'s forgotten list every entry of `old`'s it lacks (or holds older).
        static func carryForgottenList(from old: any KeyProvider, to new: KeyFile) async throws -> Int {
            let present = Dictionary(try await new.forgottenUsers().map { (ExactString($0.userID), $0) }) { _, last in last }
            var carried = 0
            for user in try await old.forgottenUsers() where present[ExactString(user.userID)] != user {
                try await new.record(user)
                carried += 1
            }
            return carried
        }

        func run() async throws {
            let logger = try options.makeLogger()
            var new = try KeyFile(path: newKeyFile)
            // Retiring needs only the new file: the old one, when configured, is read for its
            // forgotten list (the new file's is carried either way).
            let configured = try options.keyFilePath()
            let old: any KeyProvider = retireOld && configured == nil ? new : try options.keyRing(command: "keys rotate", logger: logger).provider
            try await Database.withClient(options.database(command: "keys rotate"), logger: logger) { client, _ in
                try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
                // The forgotten list moves with every step, so a forget made with the old file
                // since the last step is carried before the old file can go.
                let carried = try await Self.carryForgottenList(from: old, to: new)
                if carried > 0 { print("copied \(carried) forgotten user(s) to \(new.forgottenListPath)") }
                if retireOld {
                    try await retire(new, old: old, client: client, logger: logger)
                    return
                }
                // A KEK retired for good is never taken up again as a retiring one.
                if try await KeyStore.isRetired(old.kekID, client: client, logger: logger) {
                    throw RotationRefused(description: "KEK \(old.kekID) of the configured key file was retired (keys rotate --retire-old): rotate from the key file that replaced it")
                }
                // Workers on either file open what workers on the other seal and wrap.
                if let oldFile = old as? KeyFile, oldFile.kekID != new.kekID {
                    new = try new.retiring(oldFile)
                    _ = try oldFile.addingIntakeKeys(new.intakeKeys)
                }
                new = try new.addingIntakeKeys(old.intakeKeys)
                let rotated = try await KeyRotation(client: client, from: old, to: new, pageSize: pageSize, logger: logger).run()
                // Every running worker opens the new intake key now (workers on the old file
                // read it from there when they first meet it): producers may seal to it.
                try await KeyStore.publish(new.intakeKeys[0].publicKey, client: client, logger: logger)
                print("wrapped \(rotated.rewrapped) data keys under \(new.kekID) (beside their old wrappings); intake key \(new.intakeKeys[0].id) published. Next: restart workers with --key-file \(newKeyFile), run this again, then \(Installed.commandName) keys rotate --new-key-file \(newKeyFile) --retire-old")
                // Every other key is rewrapped; these users' keys stop the old KEK's retirement.
                guard rotated.unopened.isEmpty else {
                    throw NotRewrapped(keys: rotated.unopened, executable: Installed.commandName,
                                       rerun: "\(Installed.commandName) keys rotate --new-key-file \(newKeyFile) again")
                }
            }
        }

        /// Finishes a rotation, in steps that each refuse with what to do: no worker may still
        /// wrap under another KEK; every key gets its new wrapping (those that do not unwrap are
        /// listed by user); the new file drops the old KEK; no worker may still hold the old KEK,
        /// whatever file it started from; then, atomically (retire_key_wrappings checks both
        /// again), the old wrappings go and the old KEK is recorded as retired.
        private func retire(_ new: KeyFile, old: any KeyProvider, client: PostgresClient, logger: Logger) async throws {
            let retry = "\(Installed.commandName) keys rotate --new-key-file \(newKeyFile) --retire-old"
            func named(_ workers: [(login: String, keks: String, connections: Int)]) -> String {
                workers.map { "\($0.connections) connection(s) of login \($0.login) holding \($0.keks)" }.joined(separator: "; ")
            }
            let others = try await KeyStore.workersOnOtherKEKs(new.kekID, client: client, logger: logger)
            let onOlder = others.filter { $0.keks.split(separator: " ").first.map(String.init) != new.kekID }
            guard onOlder.isEmpty else {
                throw RotationRefused(description: "workers still run on an older KEK (\(named(onOlder))): restart those workers with --key-file \(newKeyFile), run \(Installed.commandName) keys rotate --new-key-file \(newKeyFile) again, then retire")
            }
            // Every key must have its new wrapping; a key that does not unwrap blocks for good
            // until its user is forgotten or the key restored, so those users are named.
            let left = try await KeyRotation(client: client, from: old, to: new, pageSize: pageSize, logger: logger).run(writing: false)
            guard left.unopened.isEmpty else {
                throw NotRewrapped(keys: left.unopened, executable: Installed.commandName,
                                   rerun: "\(Installed.commandName) keys rotate --new-key-file \(newKeyFile) (after a restore: it rewraps the restored keys), then \(retry)")
            }
            guard left.rewrapped == 0 else {
                throw RotationRefused(description: "\(left.rewrapped) data key(s) have no wrapping under \(new.kekID) yet (made by workers on the old key file since the last rotate): run \(Installed.commandName) keys rotate --new-key-file \(newKeyFile) with the old key file configured, then \(retry)")
            }
            let retiring = Array(Set([new.retiringKEKID, old.kekID].compactMap { $0 }.filter { $0 != new.kekID })).sorted()
            // The file is final from here on: workers started from it hold the new KEK alone.
            let finished = try new.withoutRetiringKEK()
            try await KeyStore.publish(finished.intakeKeys[0].publicKey, client: client, logger: logger)
            let holding = try await KeyStore.workersOnOtherKEKs(new.kekID, client: client, logger: logger)
            guard holding.isEmpty else {
                throw RotationRefused(description: "workers still hold the old KEK (\(named(holding))): they started from \(newKeyFile) while it held the old KEK as its retiring one, and wrap new keys under it. \(newKeyFile) no longer holds it: restart every worker with --key-file \(newKeyFile) (on other hosts, copy the file again first), then run \(retry) again")
            }
            let removed = try await KeyStore.retireWrappings(keepingKEK: new.kekID, retiring: retiring, client: client, logger: logger)
            let retired = try await KeyStore.retiredKEKs(client: client, logger: logger)
            print("removed \(removed) wrappings under older KEKs; every data key is now wrapped only under \(finished.kekID), no wrapping under a retired KEK (\(retired.joined(separator: ", "))) is stored again, and \(newKeyFile) no longer holds the old KEK: the old key file can be destroyed")
        }
    }
}

/// A rotation step refused, saying why and what to do (names KEKs and logins, never a key).
struct RotationRefused: Error, CustomStringConvertible {
    var description: String
}

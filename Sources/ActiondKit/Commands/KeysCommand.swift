import ActiondPostgres
import ActiondRuntime
import ActiondSealing
import ArgumentParser

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Key files, the intake public key, and KEK rotation.",
        subcommands: [New.self, IntakePublicKey.self, Rotate.self])

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
        static let configuration = CommandConfiguration(
            commandName: "intake-public-key",
            abstract: "Print the public key producers seal protected text to (HPKE), as JSON.",
            discussion: """
                Save it to a file and hand it to producers: actiond submit --intake-key FILE seals only to the keys in \
                it (one per line; --all prints every key the file holds, current first, for a rotation). The key id \
                (kid) is the key's fingerprint. migrate, run by the owner, also publishes it in the database \
                (SELECT actiond.intake_public_key()); producers use that one only when it is a key they were given.
                """)

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

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Wrap every data key under a new KEK, beside its old wrapping; with --retire-old, delete the old wrappings.",
            discussion: """
                Sealed text is not touched. Resumable: run it again after an interruption and it wraps what is left. \
                Then restart the workers with --key-file NEW, run rotate --retire-old, and destroy the old key file: \
                backups taken before that stay readable only with the old KEK.
                """)

        @OptionGroup var options: GlobalOptions
        @Option(name: .customLong("new-key-file"), help: "The new key file (actiond keys new FILE).") var newKeyFile: String
        @Flag(name: .customLong("retire-old"), help: "Delete the wrappings under every other KEK (refused while a key lacks a new one).") var retireOld = false
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
            let old = try options.keyRing(command: "keys rotate", logger: logger).provider
            let new = try KeyFile(path: newKeyFile)
            try await Database.withClient(options.database, logger: logger) { client, _ in
                try await Migrator(client: client, logger: logger, handlers: Installed.handlers).prepare()
                if retireOld {
                    // The forgotten list moves with every step: a forget made with the old file
                    // since the rotation is carried before the old file can go.
                    let carried = try await Self.carryForgottenList(from: old, to: new)
                    if carried > 0 { print("copied \(carried) forgotten user(s) to \(new.forgottenListPath)") }
                    let removed = try await KeyStore.retireWrappings(keepingKEK: new.kekID, client: client, logger: logger)
                    print("removed \(removed) wrappings under older KEKs; every data key is now wrapped only under \(new.kekID): the old key file can be destroyed")
                    return
                }
                let rotated = try await KeyRotation(client: client, from: old, to: new, pageSize: pageSize, logger: logger).run()
                // Text producers sealed to the old intake key keeps opening with the new file.
                _ = try new.addingIntakeKeys(old.intakeKeys)
                // The forgotten list moves with the KEK: a backup restored under the new file
                // is forgotten again exactly as under the old one. (A forget made with the old
                // file after this point is not copied: rotate again, or forget again.)
                let carried = try await Self.carryForgottenList(from: old, to: new)
                if carried > 0 { print("copied \(carried) forgotten user(s) to \(new.forgottenListPath)") }
                print("wrapped \(rotated) data keys under \(new.kekID) (beside their old wrappings). Next: restart workers with --key-file \(newKeyFile), then actiond keys rotate --new-key-file \(newKeyFile) --retire-old")
            }
        }
    }
}

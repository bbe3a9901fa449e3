import Foundation

/// The intake keys a producer trusts: the ones it was given (its key file's, or a public key
/// file handed to it), never one the database alone vouches for. Whoever can write the
/// database could otherwise publish a key whose private half they hold, and read every text
/// sealed afterwards.
package struct IntakeKeyPin: Sendable {
    /// The trusted keys, the one to seal to when the database serves none first.
    package let keys: [IntakePublicKey]
    /// Where they came from, for the sentences below (`--intake-key FILE`, `key file FILE`).
    package let source: String

    package init(keys: [IntakePublicKey], source: String) {
        self.keys = keys
        self.source = source
    }

    /// The key to seal to, given the document the database serves (nil: none published):
    /// the served key when it is pinned, else the first pinned key when none is served. A
    /// served key that is not pinned stops the producer, naming both ids.
    package func choose(served document: String?) throws -> IntakePublicKey {
        guard let document else { return keys[0] }
        let served: IntakePublicKey
        do {
            served = try IntakePublicKey(document: document)
        } catch let error as KeyError {
            throw KeyError("the database serves an intake key this producer cannot use (\(error.description)); nothing was sent")
        }
        if let pinned = keys.first(where: { $0.id == served.id }) { return pinned }
        throw KeyError("""
            the database serves intake key \(served.id), which this producer was not given (it trusts \(keys.map(\.id).joined(separator: ", ")) from \(source)): \
            nothing was sent. If \(served.id) is a new key of yours, give it with --intake-key FILE (actiond keys intake-public-key --key-file NEW > FILE); \
            if not, someone who can write the database published it: find who, and remove it from actiond.intake_keys
            """)
    }
}

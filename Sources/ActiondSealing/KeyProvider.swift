import Crypto
import Foundation

/// Where the key-encryption key (KEK) lives: it wraps and unwraps users' data keys, so that
/// the database holds data keys only wrapped and never the KEK. One implementation today
/// (`KeyFile`); a KMS or Vault provider implements the same few calls.
///
/// The provider also keeps the list of forgotten users beside the KEK, outside the database,
/// so that restoring an older backup cannot bring a forgotten person's text back: workers
/// apply the list again at start.
public protocol KeyProvider: Sendable {
    /// The identity of the KEK that `wrap` uses, stored beside each wrapped key.
    var kekID: String { get }
    /// `dataKey` wrapped under the current KEK.
    func wrap(_ dataKey: SymmetricKey) async throws -> Data
    /// A data key wrapped under the KEK `kekID`; an error when this provider does not hold it.
    func unwrap(_ wrapped: Data, kekID: String) async throws -> SymmetricKey
    /// The private keys producers seal intake text to (HPKE), current first.
    var intakeKeys: [IntakeKey] { get }
    /// Every user forgotten so far.
    func forgottenUsers() async throws -> [ForgottenUser]
    /// Records a forget (or an allowed new key) outside the database.
    func record(_ forgotten: ForgottenUser) async throws
}

/// A user whose data keys were destroyed (`actiond forget`): every key version up to
/// `throughVersion` is gone for good; a new key, once allowed, starts above it.
public struct ForgottenUser: Sendable, Hashable, Codable {
    /// The user whose data keys were destroyed.
    public var userID: String
    /// The newest of the user's data key versions destroyed: every version up to it is gone.
    public var throughVersion: Int
    /// `actiond forget USER --allow-new-key` ran after the forget.
    public var newKeyAllowed: Bool

    /// A forget of `userID` through key version `throughVersion`, with `newKeyAllowed` as recorded.
    public init(userID: String, throughVersion: Int, newKeyAllowed: Bool) {
        self.userID = userID
        self.throughVersion = throughVersion
        self.newKeyAllowed = newKeyAllowed
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", throughVersion = "through_version", newKeyAllowed = "new_key_allowed"
    }
}

/// A key this provider cannot use, or a configuration that has none. Never holds key bytes.
public struct KeyError: Error, CustomStringConvertible {
    /// What went wrong; it names keys and files, never key bytes.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

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
    /// `dataKey`, version `version` of user `userID`, wrapped under the current KEK with the
    /// user and version bound (an AEAD wrap: the wrapped key moved to another user or version
    /// does not unwrap).
    func wrap(_ dataKey: SymmetricKey, userID: String, version: Int) async throws -> Data
    /// A data key of `userID`, version `version`, wrapped under the KEK `kekID`; an error when
    /// this provider does not hold that KEK or the wrapping was made for another user or version.
    func unwrap(_ wrapped: Data, kekID: String, userID: String, version: Int) async throws -> SymmetricKey
    /// During a rolling rotation: `dataKey` wrapped under the KEK being retired as well, so
    /// that workers still on the older KEK unwrap it; nil otherwise.
    func retiringWrap(_ dataKey: SymmetricKey, userID: String, version: Int) async throws -> (kekID: String, wrapped: Data)?
    /// Whether this provider unwraps keys wrapped under KEK `kekID`.
    func holds(kekID: String) -> Bool
    /// During a rolling rotation: the KEK being retired, which `retiringWrap` wraps under.
    var retiringKEKID: String? { get }
    /// The private keys producers seal intake text to (HPKE), current first.
    var intakeKeys: [IntakeKey] { get }
    /// The intake keys as the provider holds them now (a key file read again: `keys rotate`
    /// adds the newer file's intake keys to the older one, so its running workers open text
    /// sealed to them).
    func currentIntakeKeys() throws -> [IntakeKey]
    /// Every user forgotten so far.
    func forgottenUsers() async throws -> [ForgottenUser]
    /// Records a forget (or an allowed new key) outside the database.
    func record(_ forgotten: ForgottenUser) async throws
}

extension KeyProvider {
    public func retiringWrap(_ dataKey: SymmetricKey, userID: String, version: Int) async throws -> (kekID: String, wrapped: Data)? { nil }
    public func holds(kekID: String) -> Bool { kekID == self.kekID }
    public var retiringKEKID: String? { nil }
    public func currentIntakeKeys() throws -> [IntakeKey] { intakeKeys }
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

import ActiondDomain
import Crypto
import Foundation
import Testing
@testable import ActiondSealing

/// Sealing at rest and the intake key, without a database.
@Suite("Sealing")
struct SealingTests {
    static func sealer(_ users: [String: [Int: SymmetricKey]] = [:], fences: [ForgottenUser] = [], intake: [IntakeKey] = []) -> BatchSealer {
        var entries: [ExactString: BatchSealer.UserKeys] = [:]
        for (user, keys) in users { entries[ExactString(user), default: .init()].keys = keys }
        for fence in fences { entries[ExactString(fence.userID), default: .init()].fence = fence }
        return BatchSealer(users: entries, intake: intake)
    }

    let key = SymmetricKey(size: .bits256)
    let binding = SealBinding(user: "ana", row: "event:e1", field: "text")

    @Test func sealedTextOpensOnlyForItsUserRowAndField() throws {
        let sealer = Self.sealer(["ana": [1: key], "bob": [1: key]])
        let sealed = try sealer.seal("meet at noon", binding: binding)
        #expect(!sealed.contains("meet"))
        #expect(sealed.hasPrefix("aead2.1."))
        #expect(try sealer.open(sealed, binding: binding).text == "meet at noon")
        // Moved to another user's row (even one holding the same key), another event, another field.
        for moved in [SealBinding(user: "bob", row: "event:e1", field: "text"), SealBinding(user: "ana", row: "event:e2", field: "text"),
                      SealBinding(user: "ana", row: "event:e1", field: "payload.aps.alert.body"),
                      SealBinding(user: "ana", row: "domain:1:thread:th", field: "text")] {
            #expect(throws: SealedTextUnreadable.self) { try sealer.open(sealed, binding: moved) }
        }
        // Altered by one character.
        var combined = Data(base64Encoded: String(sealed.split(separator: ".")[2]))!
        combined[combined.count / 2] ^= 0x01
        #expect(throws: SealedTextUnreadable.self) { try sealer.open("aead2.1." + combined.base64EncodedString(), binding: binding) }
        // The key version is bound: relabelled to another version holding the same key, it does not open.
        let twoVersions = Self.sealer(["ana": [1: key, 2: key]])
        let relabelled = "aead2.2." + String(sealed.split(separator: ".")[2])
        #expect(throws: SealedTextUnreadable.self) { try twoVersions.open(relabelled, binding: binding) }
        #expect(try twoVersions.open(sealed, binding: binding).text == "meet at noon")
    }

    @Test func everySealHasAFreshNonce() throws {
        let sealer = Self.sealer(["ana": [1: key]])
        let seals = try (0..<200).map { _ in try sealer.seal("same text", binding: binding) }
        #expect(Set(seals).count == 200)
        let nonces = seals.map { Data(base64Encoded: String($0.split(separator: ".")[2]))!.prefix(12) }
        #expect(Set(nonces).count == 200)
    }

    @Test func theFirstSealMakesTheUsersKeyAboveTheirFence() throws {
        let fresh = Self.sealer()
        _ = try fresh.seal("x", binding: binding)
        #expect(fresh.takeCreated().map(\.version) == [1])
        #expect(fresh.takeCreated().isEmpty, "taken once")

        let allowed = Self.sealer(fences: [ForgottenUser(userID: "ana", throughVersion: 3, newKeyAllowed: true)])
        #expect(try allowed.seal("x", binding: binding).hasPrefix("aead2.4."))

        let forgotten = Self.sealer(fences: [ForgottenUser(userID: "ana", throughVersion: 3, newKeyAllowed: false)])
        #expect(throws: ForgottenUserSeal.self) { try forgotten.seal("x", binding: binding) }
        #expect(forgotten.takeCreated().isEmpty)
    }

    @Test func aDestroyedKeyReadsAsForgottenAndAMissingOneIsAnError() throws {
        let sealed = try Self.sealer(["ana": [2: key]]).seal("gone soon", binding: binding)
        let fenced = Self.sealer(fences: [ForgottenUser(userID: "ana", throughVersion: 2, newKeyAllowed: true)])
        #expect(try fenced.open(sealed, binding: binding) == .forgotten)
        // Fenced through version 1 only: version 2 should exist, so its absence is an error.
        let below = Self.sealer(fences: [ForgottenUser(userID: "ana", throughVersion: 1, newKeyAllowed: true)])
        #expect(throws: SealedTextUnreadable.self) { try below.open(sealed, binding: binding) }
        #expect(throws: SealedTextUnreadable.self) { try Self.sealer().open(sealed, binding: binding) }
    }

    @Test func lookAlikeUsersHaveTheirOwnKeys() throws {
        // "José" composed and decomposed: equal as Swift strings, two users to PostgreSQL.
        let composed = "Jos\u{E9}", decomposed = "Jose\u{301}"
        let sealer = Self.sealer([composed: [1: key]])
        let sealed = try sealer.seal("mine", binding: SealBinding(user: composed, row: "event:e1", field: "text"))
        #expect(throws: SealedTextUnreadable.self) { try sealer.open(sealed, binding: SealBinding(user: decomposed, row: "event:e1", field: "text")) }
        _ = try sealer.seal("theirs", binding: SealBinding(user: decomposed, row: "event:e2", field: "text"))
        #expect(sealer.takeCreated().count == 1, "the look-alike user gets a key of their own")
    }

    @Test func intakeTextOpensForItsEventAlone() throws {
        let intake = IntakeKey()
        let sealed = try intake.publicKey.seal("hello", userID: "ana", eventID: "e1", field: "text")
        #expect(sealed.hasPrefix("hpke1.\(intake.id)."))
        let sealer = Self.sealer(intake: [intake])
        #expect(try sealer.open(sealed, binding: binding).text == "hello")
        #expect(throws: (any Error).self) { try sealer.open(sealed, binding: SealBinding(user: "bob", row: "event:e1", field: "text")) }
        #expect(throws: (any Error).self) { try sealer.open(sealed, binding: SealBinding(user: "ana", row: "event:e2", field: "text")) }
        #expect(throws: KeyError.self) { try Self.sealer(intake: [IntakeKey()]).open(sealed, binding: binding) }
        // The published form reads back.
        let published = try IntakePublicKey(document: intake.publicKey.document)
        #expect(published.id == intake.id)
        // The id is the key's fingerprint: a document naming another id is refused.
        let renamed = intake.publicKey.document.replacingOccurrences(of: intake.id, with: "0123456789abcdef")
        #expect(throws: KeyError.self) { try IntakePublicKey(document: renamed) }
        #expect(try sealer.open(try published.seal("again", userID: "ana", eventID: "e1", field: "text"), binding: binding).text == "again")
    }

    @Test func protectedTextNeverDescribesItsText() throws {
        let text = ProtectedText("the secret itself")
        for shown in [text.description, String(reflecting: text), "\(text)", "\([text])", String(describing: Optional(text))] {
            #expect(!shown.contains("secret"))
        }
        #expect(ProtectedText.forgotten.description == "ProtectedText(forgotten)")
    }

    @Test func protectedTextCannotBeStoredOutsideASealingScope() throws {
        struct State: Codable { var note: ProtectedText }
        #expect(throws: EncodingError.self) { try DomainCoding.encode(State(note: "kept in state")) }
        let sealing = TextSealing(sealer: Self.sealer(["ana": [1: key]]), user: "ana", row: "domain:7:thread:th")
        let stored = try TextSealing.$current.withValue(sealing) { try DomainCoding.encode(State(note: "kept in an event")) }
        #expect(!stored.contains("kept"))
        #expect(try TextSealing.$current.withValue(sealing) { try DomainCoding.decode(State.self, from: stored) }.note.text == "kept in an event")
        // Shared state belongs to no user: refused rather than sealed under no one's key.
        let shared = TextSealing(sealer: Self.sealer(), user: "", row: "domain:7:meeting:m")
        #expect(throws: (any Error).self) { try TextSealing.$current.withValue(shared) { try DomainCoding.encode(State(note: "x")) } }
    }
}

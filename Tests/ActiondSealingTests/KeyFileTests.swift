import ActiondBuiltInHandlers
import ActiondDomain
import Crypto
import Foundation
import Synchronization
import Testing
@testable import ActiondSealing

/// Key files, the forgotten list, the cache's bounds, and the protection of an event's fields.
@Suite("Key files and event protection")
struct KeyFileTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appending(path: "actiond-key-\(UUID().uuidString)").path
    }

    @Test func aKeyFileIsPrivateNeverOverwrittenAndWrapsKeys() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".forgotten") }
        let file = try KeyFile.create(at: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: KeyError.self) { try KeyFile.create(at: path) }
        let dataKey = SymmetricKey(size: .bits256)
        let wrapped = try await file.wrap(dataKey, userID: "ana", version: 1)
        #expect(try await KeyFile(path: path).unwrap(wrapped, kekID: file.kekID, userID: "ana", version: 1) == dataKey)
        await #expect(throws: KeyError.self) { try await file.unwrap(wrapped, kekID: "kek-other", userID: "ana", version: 1) }
        // The wrapping binds the user and the version: moved, it does not unwrap.
        await #expect(throws: KeyError.self) { try await file.unwrap(wrapped, kekID: file.kekID, userID: "bob", version: 1) }
        await #expect(throws: KeyError.self) { try await file.unwrap(wrapped, kekID: file.kekID, userID: "ana", version: 2) }
        #expect(try await file.wrap(dataKey, userID: "ana", version: 1) != wrapped, "a fresh nonce per wrap")
        let other = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: other) }
        let otherFile = try KeyFile.create(at: other)
        await #expect(throws: KeyError.self) { try await otherFile.unwrap(wrapped, kekID: otherFile.kekID, userID: "ana", version: 1) }

        // The forgotten list: appended, latest entry per user wins, private too.
        try await file.record(ForgottenUser(userID: "ana", throughVersion: 1, newKeyAllowed: false))
        try await file.record(ForgottenUser(userID: "bob", throughVersion: 2, newKeyAllowed: false))
        try await file.record(ForgottenUser(userID: "ana", throughVersion: 1, newKeyAllowed: true))
        #expect(try await file.forgottenUsers() == [ForgottenUser(userID: "ana", throughVersion: 1, newKeyAllowed: true),
                                                    ForgottenUser(userID: "bob", throughVersion: 2, newKeyAllowed: false)])
        #expect(try FileManager.default.attributesOfItem(atPath: file.forgottenListPath)[.posixPermissions] as? Int == 0o600)
    }

    /// Two user ids that Swift's String calls equal (composed and decomposed é) are two people:
    /// forgetting both keeps both on the list a restore re-applies.
    @Test func lookAlikeUsersStayApartOnTheForgottenList() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".forgotten") }
        let file = try KeyFile.create(at: path)
        let composed = "jos\u{e9}", decomposed = "jose\u{301}"
        try await file.record(ForgottenUser(userID: composed, throughVersion: 1, newKeyAllowed: false))
        try await file.record(ForgottenUser(userID: decomposed, throughVersion: 3, newKeyAllowed: false))
        let users = try await file.forgottenUsers()
        #expect(users.count == 2)
        #expect(users.map { Array($0.userID.unicodeScalars) } == [Array(composed.unicodeScalars), Array(decomposed.unicodeScalars)])
        #expect(users.map(\.throughVersion) == [1, 3])
    }

    /// A clock a test moves on by hand, so that the cache's ages pass without sleeping.
    final class ManualClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test func cachedKeysExpireAndAreBoundedInNumber() {
        let clock = ManualClock()
        let cache = KeyCache(maxEntries: 4, maxAge: .seconds(60), now: { clock.now })
        let key = SymmetricKey(size: .bits256)
        cache.store(user: "ana", version: 1, wrapped: Data([1]), key: key)
        #expect(cache.key(user: "ana", version: 1, wrapped: Data([1])) == key)
        #expect(cache.key(user: "ana", version: 1, wrapped: Data([2])) == nil, "another wrapping is another key")
        cache.store(user: "ana", version: 1, wrapped: Data([1]), key: key)
        clock.advance(by: .seconds(59))
        #expect(cache.key(user: "ana", version: 1, wrapped: Data([1])) == key, "younger than the bound")
        clock.advance(by: .seconds(1))
        #expect(cache.key(user: "ana", version: 1, wrapped: Data([1])) == nil, "as old as the bound")
        for index in 0..<10 { cache.store(user: "u\(index)", version: 1, wrapped: Data([1]), key: key) }
        #expect(cache.count <= 4)
    }

    /// The sweep a worker runs every 5 s (`KeyCacheKeeper`): entries older than the age bound
    /// leave memory even when nobody asks for them again (the bound SECURITY.md states).
    @Test func theSweepDropsExpiredKeysNobodyAsksFor() {
        let clock = ManualClock()
        let cache = KeyCache(maxAge: .seconds(60), now: { clock.now })
        cache.store(user: "ana", version: 1, wrapped: Data([1]), key: SymmetricKey(size: .bits256))
        clock.advance(by: .seconds(30))
        cache.store(user: "bo", version: 1, wrapped: Data([1]), key: SymmetricKey(size: .bits256))
        cache.removeExpired()
        #expect(cache.count == 2, "young entries stay")
        clock.advance(by: .seconds(31))
        cache.removeExpired()
        #expect(cache.count == 1, "ana's entry is 61 s old, bo's 31 s")
        clock.advance(by: .seconds(30))
        cache.removeExpired()
        #expect(cache.count == 0)
    }

    /// What databases from before the bindings hold still opens: a data key wrapped with RFC
    /// 3394 key wrap, and text sealed as aead1 (the binding without the key version).
    @Test func keysWrappedAndTextSealedBeforeTheBindingsStillOpen() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try KeyFile.create(at: path)
        let dataKey = SymmetricKey(size: .bits256)
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let kekText = try #require(document?["kek"] as? String)
        let kek = try #require(Data(base64Encoded: kekText))
        let legacy = try AES.KeyWrap.wrap(dataKey, using: SymmetricKey(data: kek))
        #expect(legacy.count == 40)
        #expect(try await file.unwrap(legacy, kekID: file.kekID, userID: "ana", version: 1) == dataKey)
        let binding = SealBinding(user: "ana", row: "event:e1", field: "text")
        let box = try AES.GCM.seal(Data("from before".utf8), using: dataKey, authenticating: binding.associatedData)
        let combined = try #require(box.combined)
        let aead1 = "aead1.1." + combined.base64EncodedString()
        let sealer = BatchSealer(users: [ExactString("ana"): .init(keys: [1: dataKey])], intake: [])
        #expect(try sealer.open(aead1, binding: binding).text == "from before")
        #expect(try sealer.seal("new", binding: binding).hasPrefix("aead2.1."), "new text is sealed with the version bound")
    }

    @Test func aForgetSeenByTheRingEvictsTheCachedKey() async throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try KeyFile.create(at: path)
        let ring = KeyRing(provider: file, cache: KeyCache())
        let wrapped = try await file.wrap(SymmetricKey(size: .bits256), userID: "ana", version: 1)
        let stored = StoredDataKey(userID: "ana", version: 1, kekID: file.kekID, wrapped: wrapped)
        _ = try await ring.sealer(keys: [stored], fences: [])
        #expect(ring.cache.count == 1)
        // A forget: the row is gone and the fence is there.
        let after = try await ring.sealer(keys: [], fences: [ForgottenUser(userID: "ana", throughVersion: 1, newKeyAllowed: false)])
        #expect(ring.cache.count == 0)
        #expect(throws: ForgottenUserSeal.self) { try after.seal("new", binding: SealBinding(user: "ana", row: "event:e9", field: "text")) }
        // A restored backup's row of a destroyed version is not used.
        let restored = try await ring.sealer(keys: [stored], fences: [ForgottenUser(userID: "ana", throughVersion: 1, newKeyAllowed: true)])
        #expect(ring.cache.count == 0)
        #expect(try restored.seal("x", binding: SealBinding(user: "ana", row: "event:e9", field: "text")).hasPrefix("aead2.2."))
    }

    @Test func anEventSealedToTheIntakeKeyIsOpenedForTheHandlerAndStoredAtRest() throws {
        let intake = IntakeKey()
        let envelope = EnvelopeSealer(key: intake.publicKey) { $0 == "MESSAGE" }
        let reply = #"{"id":"e1","type":"notification.response","user_id":"ana","occurred_at":"2026-11-22T09:30:00Z","data":{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"see you"}}"#
        let sealedLine = try envelope.seal(reply)
        #expect(!sealedLine.contains("see you") && sealedLine.contains("text_sealed"))
        let message = #"{"id":"e2","type":"notification.sent","user_id":"ana","occurred_at":"2026-11-22T09:30:00Z","data":{"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":{"title":"Ana","body":"lunch?"}},"THREAD_ID":"t","MESSAGE_ID":"m"}}}"#
        let sealedMessage = try envelope.seal(message)
        #expect(!sealedMessage.contains("lunch?") && !sealedMessage.contains("\"Ana\"") && sealedMessage.contains("body_sealed"))
        let general = message.replacingOccurrences(of: "MESSAGE", with: "GENERAL")
        #expect(try envelope.seal(general) == general, "an alert no handler protects is left as it is")

        func event(_ line: String, position: Int64, type: EventType) throws -> LoggedEvent {
            let object = try DomainCoding.decode(JSONValue.self, from: line)
            return LoggedEvent(position: position, id: object["id"]!.stringValue!, type: type, userID: "ana", occurredAt: Date(),
                               data: try DomainCoding.encode(object["data"]!), submittedAt: Date())
        }
        let sealer = SealingTests.sealer(["ana": [1: SymmetricKey(size: .bits256)]], intake: [intake])
        let handler = EventRouter()
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../categories/default.json")
        let registry = try CategoryRegistry.parse(try Data(contentsOf: url))
        let (events, rewrites) = try EventProtection.prepare(
            [try event(sealedLine, position: 1, type: .notificationResponse), try event(sealedMessage, position: 2, type: .notificationSent)],
            router: handler, categories: registry, sealer: sealer)
        guard case .response(let response)? = events[0].input else { Issue.record("not a response"); return }
        #expect(response.text?.text == "see you")
        guard case .sent(_, let payload)? = events[1].input else { Issue.record("not a notification"); return }
        #expect(payload["aps"]?["alert"]?["body"]?.stringValue == "lunch?")
        #expect(rewrites.count == 2)
        for rewrite in rewrites {
            let data = try #require(rewrite.data)
            #expect(!data.contains("hpke1.") && data.contains("aead2.1."))
            #expect(!data.contains("see you") && !data.contains("lunch?"))
        }
        // Read again from the log (at rest): opened, nothing more to rewrite.
        let again = events.map {
            LoggedEvent(position: $0.position, id: $0.id, type: $0.type, userID: $0.userID, occurredAt: $0.occurredAt,
                        data: $0.storedData!, submittedAt: $0.submittedAt)
        }
        let reread = try EventProtection.prepare(again, router: handler, categories: registry, sealer: sealer)
        #expect(reread.rewrites.isEmpty)
        guard case .response(let response2)? = reread.events[0].input else { Issue.record("not a response"); return }
        #expect(response2.text?.text == "see you")

        // Intake-sealed text that does not open (for another event, or garbage) is bad input:
        // the handler sees it as unreadable, and the log keeps it as it came.
        let moved = sealedLine.replacingOccurrences(of: #""id":"e1""#, with: #""id":"e9""#)
        let garbage = reply.replacingOccurrences(of: #""text":"see you""#, with: #""text_sealed":"hpke1.\#(intake.id).AAAA.BBBB""#)
        for line in [moved, garbage] {
            let bad = try EventProtection.prepare([try event(line, position: 3, type: .notificationResponse)], router: handler,
                                                  categories: registry, sealer: sealer)
            guard case .response(let unreadable)? = bad.events[0].input else { Issue.record("not a response"); return }
            #expect(unreadable.textUnreadable && unreadable.text == nil)
            #expect(bad.rewrites.isEmpty)
        }

        // The same log after a forget: forgotten, never an error.
        let forgotten = SealingTests.sealer(fences: [ForgottenUser(userID: "ana", throughVersion: 1, newKeyAllowed: false)], intake: [intake])
        let afterForget = try EventProtection.prepare(again, router: handler, categories: registry, sealer: forgotten)
        guard case .response(let response3)? = afterForget.events[0].input else { Issue.record("not a response"); return }
        #expect(response3.text == .forgotten)
    }
}

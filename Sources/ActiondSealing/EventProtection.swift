import ActiondDomain
import Foundation

/// Opens and reseals the protected fields of the input events a worker took (see
/// `ProtectedFields`): the handler gets them in clear (or forgotten), and every event whose
/// stored form held clear text, or text sealed to the intake key, gets its at-rest form, which
/// the batch writes back to the log in the transaction that records its outcome.
package enum EventProtection {
    /// An event's data as the log must store it from now on; `data` nil: the event cannot be
    /// read by this worker (forced into the log past submit's grammar), so PostgreSQL replaces
    /// its protected fields by the unreadable marker (`actiond.unreadable_data`): whatever
    /// becomes of it, its text does not stay in clear.
    package struct Rewrite: Sendable, Hashable {
        package var userID: String
        package var position: Int64
        package var data: String?

        package init(userID: String, position: Int64, data: String?) {
            self.userID = userID
            self.position = position
            self.data = data
        }
    }

    /// `events` with their protected fields opened in `input` (in memory; `data` and
    /// `storedData` hold the stored form, never clear text), and the rewrites of the log.
    /// `sealing`: false only for the benchmark's sealing-off run (clear text stays as submitted).
    package static func prepare(_ events: [LoggedEvent], router: any EventRouting, categories: CategoryRegistry?,
                                sealer: BatchSealer, sealing: Bool = true) throws -> (events: [LoggedEvent], rewrites: [Rewrite]) {
        let result = prepareEach(events, router: router, categories: categories, sealer: sealer, sealing: sealing)
        if let failure = result.failures.values.first { throw failure }
        return (result.events, result.rewrites)
    }

    /// `prepare`, with the events whose stored text cannot be opened (tampered with, or its
    /// key missing without a fence) set apart by position with their error: they fail alone,
    /// and the rest of the batch goes on.
    package static func prepareEach(_ events: [LoggedEvent], router: any EventRouting, categories: CategoryRegistry?,
                                    sealer: BatchSealer, sealing: Bool = true)
        -> (events: [LoggedEvent], rewrites: [Rewrite], failures: [Int64: any Error]) {
        var prepared: [LoggedEvent] = []
        var rewrites: [Rewrite] = []
        var failures: [Int64: any Error] = [:]
        prepared.reserveCapacity(events.count)
        for event in events {
            do {
                let (opened, rewrite) = try prepare(event, router: router, categories: categories, sealer: sealer, sealing: sealing)
                prepared.append(opened)
                if let rewrite { rewrites.append(rewrite) }
            } catch {
                failures[event.position] = error
                prepared.append(event)
            }
        }
        return (prepared, rewrites, failures)
    }

    private static func prepare(_ event: LoggedEvent, router: any EventRouting, categories: CategoryRegistry?,
                                sealer: BatchSealer, sealing: Bool) throws -> (LoggedEvent, Rewrite?) {
        guard let protectsAlert = mayHoldProtectedFields(event, router: router, categories: categories) else {
            if event.input == nil, ProtectedFields.mayHold(event.data, type: event.type), (try? JSONValue(parsing: event.data)) == nil {
                return (event, Rewrite(userID: event.userID, position: event.position, data: nil))
            }
            return (event, nil)
        }
        guard let data = try? JSONValue(parsing: event.data) else {
            return (event, Rewrite(userID: event.userID, position: event.position, data: nil))
        }
        let binding = { (field: String) in SealBinding(user: event.userID, row: SealBinding.inputRow(eventID: event.id), field: field) }
        let crypt = ProtectedFields.Crypt(
            open: { sealed, field in try sealer.open(sealed, binding: binding(field)) },
            seal: sealing ? { clear, field in try sealer.seal(clear, binding: binding(field)) } : nil,
            isAtRest: isAtRest,
            forgotten: sealer.isForgotten(event.userID))
        let result = try ProtectedFields.prepare(data, type: event.type, protectsAlert: protectsAlert, crypt: crypt)
        let stored = try result.stored.map { try DomainCoding.encode($0) } ?? event.data
        var opened = LoggedEvent(position: event.position, id: event.id, type: event.type, userID: event.userID,
                                 occurredAt: event.occurredAt, data: stored,
                                 input: try? EventData.read(result.memory, type: event.type, position: event.position),
                                 submittedAt: event.submittedAt, failedAttempts: event.failedAttempts)
        opened.storedData = stored
        return (opened, result.stored == nil ? nil : Rewrite(userID: event.userID, position: event.position, data: stored))
    }

    /// Whether a sealed protected field is in its at-rest form: anything but text sealed to an
    /// intake key (which a worker has yet to seal under its user's key).
    static func isAtRest(_ sealed: String) -> Bool { !sealed.hasPrefix(IntakeKey.prefix) }

    /// Whether `event`'s data holds protected text that is not sealed at rest (in clear, or
    /// sealed to an intake key), read from its fields: what must be scrubbed from an event
    /// that cannot be sealed.
    package static func holdsTextNotAtRest(_ event: LoggedEvent) -> Bool {
        ProtectedFields.mayHold(event.data, type: event.type)
            && ProtectedFields.holdsTextNotAtRest(event.data, type: event.type, isAtRest: isAtRest)
    }

    /// The intake key ids the events' fields are sealed to (`hpke1.<id>.…`).
    package static func intakeKeyIDs(in events: [LoggedEvent]) -> Set<String> {
        var ids: Set<String> = []
        for event in events {
            var offset = 0
            while let found = UTF8Bytes.firstOffset(of: IntakeKey.prefix, in: event.data, from: offset) {
                offset = found + IntakeKey.prefix.utf8.count
                let rest = event.data.utf8.dropFirst(offset)
                ids.insert(String(decoding: rest.prefix { $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "\"") }, as: UTF8.self))
            }
        }
        return ids
    }

    /// nil when `event` cannot hold a protected field (no parse needed); otherwise whether its
    /// alert is protected. Read from what the claim parsed already: a notification's category,
    /// and whether anything is sealed.
    private static func mayHoldProtectedFields(_ event: LoggedEvent, router: any EventRouting, categories: CategoryRegistry?) -> Bool? {
        switch event.type {
        case .notificationResponse:
            return UTF8Bytes.contains(event.data, "\"text") ? false : nil
        case .notificationSent:
            var category: String?
            if case .sent(_, let payload)? = event.input { category = payload["aps"]?["category"]?.stringValue }
            let protects = category.map { router.protectsAlert(category: $0, in: categories) } ?? false
            return protects || UTF8Bytes.contains(event.data, ProtectedFields.sealedSuffix + "\"") ? protects : nil
        default:
            return nil
        }
    }
}

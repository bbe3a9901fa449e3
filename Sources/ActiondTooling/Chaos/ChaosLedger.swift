import Foundation

/// What the chaos soak's producers were told: one JSON line per submit's answer, written as
/// the answers come, to a file outside the database under test (a crash that lost an
/// acknowledged event must not take the record of its acknowledgement with it).
package enum ChaosLedger {
    /// One submit's answer.
    package struct Entry: Codable, Sendable, Equatable {
        package var user: String
        package var id: String
        /// The position `submit` answered with.
        package var position: Int64
        /// `accepted` or `duplicate`, as `submit` answered; `refused` (class 22 or 23), or
        /// `unanswered` (given up; position -1 for both).
        package var answer: String
        /// Attempts until an answer came (more than 1: a connection broke and it was sent again).
        package var attempts: Int
        /// Whether an earlier attempt may have committed: its connection broke after the
        /// statement was sent. A `duplicate` answer is then the event coming back as itself.
        package var inDoubt: Bool
        /// A deliberate second submit of an event already acknowledged (its answer must be
        /// `duplicate` with the first position).
        package var resubmit: Bool

        package init(user: String, id: String, position: Int64, answer: String, attempts: Int = 1, inDoubt: Bool = false, resubmit: Bool = false) {
            self.user = user
            self.id = id
            self.position = position
            self.answer = answer
            self.attempts = attempts
            self.inDoubt = inDoubt
            self.resubmit = resubmit
        }

        enum CodingKeys: String, CodingKey {
            case user, id, position, answer, attempts
            case inDoubt = "in_doubt"
            case resubmit
        }
    }

    /// Appends entries to the ledger file, in blocks (flushed by `close`).
    package actor Writer {
        private let handle: FileHandle
        private var buffer = Data()
        private let encoder = JSONEncoder()
        package private(set) var entries = 0

        /// Creates (or truncates) the file at `path`.
        package init(path: String) throws {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ChaosError("cannot create the ledger file \(path)")
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            encoder.outputFormatting = [.sortedKeys]
        }

        package func append(_ entry: Entry) throws {
            buffer.append(try encoder.encode(entry))
            buffer.append(0x0A)
            entries += 1
            if buffer.count >= 1 << 16 { try flush() }
        }

        package func flush() throws {
            guard !buffer.isEmpty else { return }
            try handle.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }

        package func close() throws {
            try flush()
            try handle.close()
        }
    }

    /// Every entry of the ledger file at `path`, in the order written.
    package static func read(path: String) throws -> [Entry] {
        let decoder = JSONDecoder()
        var entries: [Entry] = []
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            do {
                entries.append(try decoder.decode(Entry.self, from: Data(line.utf8)))
            } catch {
                throw ChaosError("the ledger \(path), line \(number + 1), is not a ledger entry: \(error)")
            }
        }
        return entries
    }
}

/// A chaos soak that could not run or check (not a failed check: those are in the result).
package struct ChaosError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

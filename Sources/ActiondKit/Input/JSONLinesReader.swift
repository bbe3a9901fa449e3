import ActiondRuntime
import Foundation

/// Reads a file or standard input as JSON Lines, in batches, without loading it whole.
/// Each line keeps its 1-based line number; blank lines are skipped.
package struct JSONLinesReader {
    package struct Line: Sendable, Hashable {
        package var number: Int
        package var text: String
    }

    private let handle: FileHandle
    private var buffer = Data()
    /// Where the unread part of `buffer` starts (dropping lines one by one would be quadratic).
    private var offset = 0
    private var nextLineNumber = 1
    private var finished = false

    /// `path` "-" reads standard input.
    package init(path: String) throws {
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
            self.handle = handle
        }
    }

    /// Up to `count` non-blank lines; empty at the end of the input.
    package mutating func next(_ count: Int) throws -> [Line] {
        var lines: [Line] = []
        lines.reserveCapacity(count)
        while lines.count < count {
            if let newline = buffer[offset...].firstIndex(of: UInt8(ascii: "\n")) {
                append(buffer[offset..<newline], to: &lines)
                offset = newline + 1
            } else if finished {
                if offset < buffer.endIndex { append(buffer[offset...], to: &lines) }
                buffer = Data()
                offset = 0
                break
            } else if let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                buffer = buffer[offset...] + chunk
                buffer = Data(buffer)  // re-base indices at 0
                offset = 0
            } else {
                finished = true
            }
        }
        return lines
    }

    private mutating func append(_ bytes: Data, to lines: inout [Line]) {
        defer { nextLineNumber += 1 }
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        guard text.contains(where: { !$0.isWhitespace }) else { return }
        lines.append(Line(number: nextLineNumber, text: text))
    }
}

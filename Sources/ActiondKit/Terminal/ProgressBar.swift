import ActiondRuntime
import Foundation
import Synchronization

/// A progress bar on standard error: redrawn in place on a terminal (at most ten times a
/// second), a line at each quarter otherwise, so logs of non-interactive runs stay short.
package final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var lastQuarter = -1
        var drawn = false
    }

    private let label: String
    private let width: Int
    private let interactive: Bool
    private let state = Mutex(State())

    package init(_ label: String, width: Int = 30, interactive: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.width = width
        self.interactive = interactive
    }

    /// `done` of `total` units (events, rows…).
    package func update(_ done: Int, of total: Int) {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let line: String? = state.withLock { state in
            if interactive {
                let now = ContinuousClock.now
                if let last = state.lastDraw, now - last < .milliseconds(100), done < total { return nil }
                state.lastDraw = now
                state.drawn = true
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                return "\r\(label) [\(bar)] \(Self.percent(fraction)) \(done)/\(total)"
            }
            let quarter = Int(fraction * 4)
            guard quarter > state.lastQuarter else { return nil }
            state.lastQuarter = quarter
            return "\(label): \(Self.percent(fraction)) (\(done)/\(total))\n"
        }
        if let line {
            fflush(nil)  // what was printed before the bar (all open streams) comes before it
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Ends the bar's line on a terminal.
    package func finish() {
        let drawn = state.withLock { $0.drawn }
        if interactive && drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private static func percent(_ fraction: Double) -> String {
        let value = Int((fraction * 100).rounded(.down))
        return value < 10 ? "  \(value)%" : value < 100 ? " \(value)%" : "\(value)%"
    }
}

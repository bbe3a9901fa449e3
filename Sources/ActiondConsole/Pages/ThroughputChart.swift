import ActiondPostgres
import Foundation
import Logging

/// The overview's chart: decisions per minute over the last hour, one stacked bar per minute
/// (applied, rejected, superseded, stashed, dead), as inline SVG drawn by the template from
/// these numbers alone.
struct ThroughputChart: Sendable {
    struct Segment: Sendable {
        let x: Int
        let y: Int
        let w: Int
        let h: Int
        let kind: String
        let title: String
    }

    static let kinds = ["applied", "rejected", "superseded", "stashed", "dead"]
    static let width = 720
    static let height = 160

    let width = ThroughputChart.width
    let height = ThroughputChart.height
    let segments: [Segment]
    let peak: String
    let legend: [String]
    let description: String

    init(rows: [ConsoleRecord]) {
        // Oldest minute on the left.
        let minutes = rows.sorted { ($0.date("minute") ?? .distantPast) < ($1.date("minute") ?? .distantPast) }
        let totals = minutes.map { row in ThroughputChart.kinds.reduce(Int64(0)) { $0 + (row.int($1) ?? 0) } }
        let peak = max(totals.max() ?? 0, 1)
        let slot = minutes.isEmpty ? ThroughputChart.width : ThroughputChart.width / max(minutes.count, 1)
        var segments: [Segment] = []
        for (index, row) in minutes.enumerated() {
            var top = ThroughputChart.height
            for kind in ThroughputChart.kinds {
                let value = row.int(kind) ?? 0
                guard value > 0 else { continue }
                let height = max(1, Int((Double(value) / Double(peak) * Double(ThroughputChart.height - 4)).rounded()))
                top -= height
                segments.append(Segment(x: index * slot + 1, y: top, w: max(slot - 2, 1), h: height, kind: kind,
                                        title: "\(Show.time(row.date("minute"))): \(Show.count(value)) \(kind)"))
            }
        }
        self.segments = segments
        self.peak = Show.count(peak)
        self.legend = ThroughputChart.kinds
        let total = totals.reduce(0, +)
        self.description = "Decisions per minute over the last \(minutes.count) minutes: \(Show.count(total)) in all, at most \(Show.count(totals.max() ?? 0)) in a minute."
    }
}

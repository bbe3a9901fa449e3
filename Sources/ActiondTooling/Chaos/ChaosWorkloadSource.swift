import ActiondDomain
import Foundation

/// The soak's endless workload: rounds of `MixedWorkload` over the same users (each round
/// gives every user another invitation, timer, thread and lock), split among the producer
/// connections by user. Event k of the run is due at k / rate seconds.
///
/// No response comes before its notification here: a held response is decided when its
/// notification arrives, after its user's later events, which the order check would have
/// to tell apart (the suite's hold tests cover them).
actor ChaosWorkloadSource {
    struct Event: Sendable {
        /// The event's place in the run's offered load.
        var index: Int
        var line: String
        var user: String
        var id: String
        var type: String

        init(index: Int, line: String) {
            // The workload's lines begin {"id":"…","type":"…","user_id":"…".
            let strings = line.split(separator: "\"", maxSplits: 12)
            self.index = index
            self.line = line
            self.id = String(strings[3])
            self.type = String(strings[7])
            self.user = String(strings[11])
        }

        /// The device of `user` unlocked at the end of the run.
        init(unlocking user: String) {
            let time = MicrosecondTimestamp.format(Date())
            let line = #"{"id":"chaos-unlock-at-end","type":"protected_data.available","user_id":"\#(user)","occurred_at":"\#(time)","data":{}}"#
            self.init(index: -1, line: line)
        }
    }

    private let users: Int
    private let connections: Int
    private var rounds: [Int: (parts: [[Event]], taken: Int)] = [:]
    private var generated = -1
    private var nextIndex = 0
    /// Device time of the first round; each round starts a day later.
    private static let start = Date(timeIntervalSince1970: 1_795_000_000)

    init(users: Int, connections: Int) {
        self.users = users
        self.connections = connections
    }

    /// Connection `connection`'s events of round `round`, in order (each connection takes
    /// each round once, in order).
    func part(round: Int, connection: Int) -> [Event] {
        while generated < round { generate() }
        guard var entry = rounds[round] else { return [] }
        let part = entry.parts[connection]
        entry.parts[connection] = []
        entry.taken += 1
        rounds[round] = entry.taken == connections ? nil : entry
        return part
    }

    private func generate() {
        generated += 1
        var workload = MixedWorkload(users: users, seed: UInt64(generated + 1), runID: "c\(generated)", userPrefix: "c",
                                     start: Self.start.addingTimeInterval(Double(generated) * 86_400))
        workload.earlyResponses = false
        var parts = [[Event]](repeating: [], count: connections)
        for line in workload.events() {
            let event = Event(index: nextIndex, line: line)
            nextIndex += 1
            parts[Self.connection(of: event.user, among: connections)].append(event)
        }
        rounds[generated] = (parts, 0)
    }

    /// The connection that carries `user`'s events (stable within a run and across runs).
    static func connection(of user: String, among connections: Int) -> Int {
        var hash: UInt64 = 14_695_981_039_346_656_037  // FNV-1a
        for byte in user.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return Int(hash % UInt64(connections))
    }
}

import ActiondDomain
import Foundation

/// The events `actiond demo` submits: a `MixedWorkload` (invitations answered, some twice and
/// out of order, some meetings cancelled; timers snoozed to the limit and stopped; threads
/// replied to from locked phones; responses arriving before their notification), a producer
/// retrying one event, and a handful of inputs that must be refused.
package struct DemoScenario: Sendable {
    /// One input line, with why the demo sends it (printed for refused inputs).
    package struct Input: Sendable {
        package var json: String
        package var note: String
    }

    package var inputs: [Input]

    /// `users` people. `runID` keeps ids unique across runs, so the demo can run again on the
    /// same database.
    package init(users: Int, runID: String, start: Date = Date()) {
        let workload = MixedWorkload(users: users, seed: UInt64(truncatingIfNeeded: runID.hashValue), runID: runID, start: start)
        var inputs = workload.events().map { Input(json: $0, note: "") }
        let time = MicrosecondTimestamp.format(start)
        func bad(_ id: String, _ type: String, _ data: String, occurredAt: String? = nil, note: String) {
            inputs.append(Input(json: #"{"id":"\#(runID)-\#(id)","type":"\#(type)","user_id":"\#(runID)-u0","occurred_at":"\#(occurredAt ?? time)","data":\#(data)}"#,
                                note: note))
        }
        // A producer retrying: the same event again is a duplicate, not a second event.
        if let first = inputs.first { inputs.append(Input(json: first.json, note: "a retried submission")) }
        bad("bad-category", "notification.sent", #"{"request_id":"\#(runID)-bad-1","payload":{"aps":{"category":"meeting_invitation"},"MEETING_ID":"m"}}"#,
            note: "category identifiers are case-sensitive")
        bad("bad-key", "notification.sent", #"{"request_id":"\#(runID)-bad-2","payload":{"aps":{"category":"TIMER_EXPIRED"}}}"#,
            note: "a timer notification without TIMER_ID")
        bad("bad-time", "meeting.cancelled", #"{"meeting_id":"m"}"#, occurredAt: "yesterday", note: "occurred_at is not an RFC 3339 time")
        bad("bad-locked", "notification.response", #"{"request_id":"\#(runID)-u0-invite","action":"ACCEPT_ACTION"}"#,
            note: "a response without data.locked")
        self.inputs = inputs
    }
}

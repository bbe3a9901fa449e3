import ActiondDomain
import ActiondSealing
import Foundation
import Testing

/// A dead letter whose text cannot be sealed is scrubbed unless all its protected text is
/// already sealed at rest (`EventProtection.holdsTextNotAtRest`, what the worker asks). Which
/// it is must be read from the fields, never found by searching the text: a person can type
/// `"aead`, and a producer can name a key `…_sealed`.
@Suite("Protected text at rest")
struct TextAtRestTests {
    static let atRest = "aead2.1.QUJD"

    static func holdsTextNotAtRest(_ data: String, _ type: EventType) -> Bool {
        EventProtection.holdsTextNotAtRest(LoggedEvent(position: 1, id: "e", type: type, userID: "ana", occurredAt: Date(timeIntervalSince1970: 0),
                                                       data: data, submittedAt: Date(timeIntervalSince1970: 0), failedAttempts: 0))
    }

    @Test func aResponsesTextIsAtRestOnlyWhenSealedByAWorker() {
        let cases: [(String, Bool)] = [
            (#"{"request_id":"r","action":"REPLY_ACTION","locked":false}"#, false),
            (#"{"request_id":"r","action":"REPLY_ACTION","text_sealed":"\#(Self.atRest)"}"#, false),
            (#"{"request_id": "r", "text_sealed": "\#(Self.atRest)", "locked": true}"#, false),
            (#"{"request_id":"r","text":"hello"}"#, true),
            (#"{"request_id":"r","text":"x \"aead"}"#, true),
            (#"{"request_id": "r", "text": "she wrote \"aead2.1. and \"text_sealed\": \"aead"}"#, true),
            (#"{"request_id":"r","text":"hi","x_sealed":"\#(Self.atRest)"}"#, true),
            (#"{"request_id":"r","text":"hi","text_sealed":"\#(Self.atRest)"}"#, true),
            (#"{"request_id":"r","text_sealed":"hpke1.k.e.c"}"#, true),
            (#"{"request_id":"r","text_sealed":7}"#, true),
            (#"{"request_id":"r","text":null}"#, false),
            (#"{"request_id":"r","n":1e400,"text_sealed":"\#(Self.atRest)"}"#, true),
            (#"not json, yet with "text in it"#, true),
            ("not json, and nothing that could be text", false),
        ]
        for (data, expected) in cases {
            #expect(Self.holdsTextNotAtRest(data, .notificationResponse) == expected, "\(data)")
        }
    }

    @Test func aNotificationsAlertIsAtRestOnlyWhenEveryTextFieldIsSealedByAWorker() {
        func sent(_ aps: String, custom: String = "") -> String {
            #"{"request_id":"r","payload":{"aps":\#(aps)\#(custom)}}"#
        }
        let cases: [(String, Bool)] = [
            (sent(#"{"category":"MESSAGE"}"#), false),
            (sent(#"{"category":"MESSAGE","alert_sealed":"\#(Self.atRest)"}"#), false),
            (sent(#"{"category":"MESSAGE","alert":{"title_sealed":"\#(Self.atRest)","body_sealed":"\#(Self.atRest)","launch-image":"x"}}"#), false),
            (sent(#"{"category":"MESSAGE","alert":"hello"}"#), true),
            (sent(#"{"category":"MESSAGE","alert":{"title_sealed":"\#(Self.atRest)","body":"in clear"}}"#), true),
            (sent(#"{"category":"MESSAGE","alert":{"title_sealed":"hpke1.k.e.c"}}"#), true),
            (sent(#"{"category":"MESSAGE","alert":{"loc-args":["a"]}}"#), true),
            (sent(#"{"category":"MESSAGE","alert":{"body_sealed":"\#(Self.atRest)"},"alert_sealed":"hpke1.x"}"#), true),
            // A custom key that looks sealed at rest does not hide a clear alert.
            (sent(#"{"category":"MESSAGE","alert":"hi \"aead"}"#, custom: #","title_sealed":"\#(Self.atRest)""#), true),
        ]
        for (data, expected) in cases {
            #expect(Self.holdsTextNotAtRest(data, .notificationSent) == expected, "\(data)")
        }
        #expect(!Self.holdsTextNotAtRest(#"{"meeting_id":"m","text":"not protected here"}"#, .meetingCancelled))
    }
}

import ActiondDomain
import Foundation
import Testing
@testable import ActiondSealing

/// `actiond submit`'s sealing of a line (`EnvelopeSealer`): protected fields are found by
/// parsing the line, whatever the spelling of their keys and whatever their JSON type, and a
/// line that cannot be read or sealed is refused with the code submit gives, naming the field.
@Suite("Envelope sealer")
struct EnvelopeSealerTests {
    let intake = IntakeKey()
    var envelope: EnvelopeSealer { EnvelopeSealer(key: intake.publicKey) { $0 == "MESSAGE" } }

    static func line(_ id: String, _ type: String, data: String) -> String {
        #"{"id":"\#(id)","type":"\#(type)","user_id":"ana","occurred_at":"2026-11-22T09:30:00Z","data":\#(data)}"#
    }

    @Test func aKeyWrittenWithAJSONEscapeIsFoundAndSealed() throws {
        for key in [#"te\u0078t"#, #"\u0074\u0065\u0078\u0074"#, #"tex\u0074"#] {
            let line = Self.line("e1", "notification.response", data: #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"\#(key)":"MARK-escaped"}"#)
            let sealed = try envelope.seal(line)
            #expect(!sealed.contains("MARK-escaped"), "\(key): \(sealed)")
            let data = try #require(try JSONValue(parsing: sealed)["data"])
            #expect(data["text"] == nil)
            let text = try #require(data["text_sealed"]?.stringValue)
            #expect(try intake.open(text, userID: "ana", eventID: "e1", field: "text") == "MARK-escaped")
        }
        // The type and the alert's keys too.
        let message = #"{"id":"e2","typ\u0065":"notification.sent","user_id":"ana","occurred_at":"2026-11-22T09:30:00Z","data":{"request_id":"r","payload":{"aps":{"category":"MESSAGE","\u0061lert":{"b\u006fdy":"MARK-body","loc\u002dargs":["MARK-arg"]}},"THREAD_ID":"t","MESSAGE_ID":"m"}}}"#
        let sealed = try envelope.seal(message)
        #expect(!sealed.contains("MARK-"), "\(sealed)")
    }

    @Test func nonStringAlertFieldsAreSealedAsTheirJSONText() throws {
        let line = Self.line("e3", "notification.sent", data: #"""
            {"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":{"title":{"who":"MARK-title"},"body":12,
             "loc-args":["MARK-a","meet at 5",2],"title-loc-args":[true,"MARK-b"],"subtitle-loc-args":[null]}},"THREAD_ID":"t","MESSAGE_ID":"m"}}
            """#.replacingOccurrences(of: "\n", with: ""))
        let sealed = try envelope.seal(line)
        #expect(!sealed.contains("MARK-") && !sealed.contains("meet at 5"), "\(sealed)")
        let alert = try #require(try JSONValue(parsing: sealed)["data"]?["payload"]?["aps"]?["alert"])
        func opened(_ name: String) throws -> String {
            let text = try #require(alert[name + "_sealed"]?.stringValue, "\(name)")
            return try intake.open(text, userID: "ana", eventID: "e3", field: "payload.aps.alert." + name)
        }
        #expect(try opened("loc-args") == #"["MARK-a","meet at 5",2]"#)
        #expect(try opened("title-loc-args") == #"[true,"MARK-b"]"#)
        #expect(try opened("subtitle-loc-args") == "[null]")
        #expect(try opened("title") == "\u{0}" + #"{"who":"MARK-title"}"#)
        #expect(try opened("body") == "\u{0}12")
        // A string alert of any other type: sealed whole.
        let numberAlert = Self.line("e4", "notification.sent", data: #"{"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":["MARK-c",1]},"THREAD_ID":"t","MESSAGE_ID":"m"}}"#)
        let sealedAlert = try envelope.seal(numberAlert)
        #expect(!sealedAlert.contains("MARK-c") && sealedAlert.contains("alert_sealed"), "\(sealedAlert)")
    }

    @Test func aLineThatCannotBeSealedIsRefusedNamingTheRule() throws {
        let cases: [(line: String, rule: EnvelopeSealer.Refusal.Rule, message: String)] = [
            (#"{"id": "broken""#, .notJSON, "event: not valid JSON"),
            (Self.line("e5", "meeting.cancelled", data: #"{"meeting_id":"m","n":1e400}"#), .numberOutOfRange, "data: holds a number beyond the range of a double"),
            (Self.line("e5b", "notification.response", data: String(repeating: #"{"a":"#, count: 520) + "1" + String(repeating: "}", count: 520)),
             .malformed, "data: is nested more than 512 deep"),
            (Self.line("e6", "notification.response", data: #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"MARK","text_sealed":"hpke1.x"}"#),
             .malformed, "data.text_sealed: give the field in clear (text) or sealed (text_sealed), not both"),
            (Self.line("e7", "notification.sent", data: #"{"request_id":"r","payload":{"aps":{"category":"MESSAGE","alert":{"body":"MARK","body_sealed":"hpke1.x"}}}}"#),
             .malformed, "data.payload.aps.alert.body_sealed: give the field in clear (body) or sealed (body_sealed), not both"),
            (Self.line("e8", "notification.response", data: #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"text":"\u0000MARK"}"#),
             .nulCharacter, "data.text: holds U+0000"),
            (Self.line("e9", "notification.response", data: #"{"request_id":"r","action":"REPLY_ACTION","locked":false,"te\u0078t":["MARK"]}"#),
             .malformed, "data.text: must be a string, got array"),
        ]
        for (line, rule, message) in cases {
            do {
                _ = try envelope.seal(line)
                Issue.record("not refused: \(line)")
            } catch let refusal as EnvelopeSealer.Refusal {
                #expect(refusal.rule == rule, "\(line)")
                #expect(refusal.description.hasPrefix(message), "\(refusal.description)")
                #expect(!refusal.description.contains("MARK"), "no text in a refusal")
            }
        }
        // A line with no protected field is sent as it is, spelling and all.
        let plain = Self.line("e10", "meeting.cancelled", data: #"{"meeting_id":"m\u0031"}"#)
        #expect(try envelope.seal(plain) == plain)
    }
}

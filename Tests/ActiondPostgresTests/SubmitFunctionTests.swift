import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

/// `actiond.submit(event jsonb)`, the SQL entry point producers call in their own transactions,
/// and `actiond.submit_many` for a batch of one: the same rules, the same answers.
@Suite("submit()")
struct SubmitFunctionTests {
    typealias Answer = SubmitAnswer

    static func submit(_ event: JSONValue, on db: TestDatabase, via path: SubmitPath = .oneEvent) async throws -> Answer {
        try await db.submit(event.json, via: path)
    }

    static func submit(_ json: String, on db: TestDatabase, via path: SubmitPath = .oneEvent) async throws -> Answer {
        try await db.submit(json, via: path)
    }

    static func stored(_ db: TestDatabase) async throws -> (events: Int, queued: Int) {
        (try await db.scalar("SELECT count(*) FROM actiond.events", as: Int.self),
         try await db.scalar("SELECT count(*) FROM actiond.pending_events", as: Int.self))
    }

    @Test(arguments: SubmitPath.allCases)
    func acceptedDuplicateAndConflict(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            let event = EventJSON.invitation()
            let first = try await Self.submit(event, on: db, via: path)
            guard case .result(let json) = first, json.contains(#""status": "accepted""#) else {
                Issue.record("expected accepted, got \(first)"); return
            }
            let position = try await db.scalar("SELECT position FROM actiond.events WHERE id = 'sent-1'", as: Int.self)
            #expect(json == #"{"status": "accepted", "position": \#(position)}"#)

            _ = try await Self.submit(EventJSON.response(), on: db, via: path)  // something after it
            // The same content again, even written differently (key order, another offset for
            // the same instant), is a duplicate with the original position and no second effect.
            let rewritten = #"{"data":{"payload":{"MEETING_ID":"m-1","aps":{"alert":{"title":"Team sync"},"category":"MEETING_INVITATION"}},"request_id":"req-1"},"user_id":"ana","type":"notification.sent","occurred_at":"2026-11-22T10:30:00+01:00","id":"sent-1"}"#
            #expect(try await Self.submit(rewritten, on: db, via: path) == .result(#"{"status": "duplicate", "position": \#(position)}"#))
            #expect(try await Self.stored(db) == (2, 2))

            let changed = try await Self.submit(event.setting(["data", "request_id"], to: .string("req-2")), on: db, via: path)
            #expect(changed.sqlState == .uniqueViolation)
            #expect(changed.message?.contains("id: was already submitted for this user_id with different content (position \(position))") == true)
            #expect(try await Self.stored(db) == (2, 2))
            // The alert of a category that does not protect it is compared like any field.
            let otherAlert = try await Self.submit(event.setting(["data", "payload", "aps", "alert", "title"], to: .string("Team sync moved")), on: db, via: path)
            #expect(otherAlert.sqlState == .uniqueViolation, "a changed alert is a conflict, never a duplicate: \(otherAlert)")
            #expect(try await Self.stored(db) == (2, 2))

            // An id is unique per user (004_distributable_keys.sql): the same id for another
            // user is another event, and a duplicate of that one only; look-alike user ids
            // (composed vs decomposed) are other users.
            let forBo = event.setting(["user_id"], to: .string("bo"))
            guard case .result(let boJSON) = try await Self.submit(forBo, on: db, via: path), boJSON.contains(#""status": "accepted""#) else {
                Issue.record("the same id for another user was not accepted"); return
            }
            let boPosition = try await db.scalar("SELECT position FROM actiond.events WHERE id = 'sent-1' AND user_id = 'bo'", as: Int.self)
            #expect(boPosition > position)
            #expect(try await Self.submit(forBo, on: db, via: path) == .result(#"{"status": "duplicate", "position": \#(boPosition)}"#))
            let decomposed = event.setting(["user_id"], to: .string("Jose\u{0301}"))
            let composed = event.setting(["user_id"], to: .string("Jos\u{00E9}"))
            #expect(try await Self.submit(decomposed, on: db, via: path).sqlState == nil)
            #expect(try await Self.submit(composed, on: db, via: path).sqlState == nil)
            #expect(try await Self.stored(db) == (5, 5))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.event_ids WHERE id = 'sent-1'", as: Int.self) == 4)
        }
    }

    /// Envelope rules: each mutation of a valid event, the SQLSTATE and the start of the message.
    static let envelopeCases: [(String, JSONValue, SQLState, String)] = {
        let valid = EventJSON.cancelled()
        return [
            ("id missing", valid.setting(["id"], to: nil), .invalidParameterValue, "id: is required"),
            ("id null", valid.setting(["id"], to: .null), .invalidParameterValue, "id: is required"),
            ("id a number", valid.setting(["id"], to: .number(7)), .invalidParameterValue, "id: must be a string, got number"),
            ("id empty", valid.setting(["id"], to: .string("")), .invalidParameterValue, "id: must not be empty"),
            ("id 129 characters", valid.setting(["id"], to: .string(String(repeating: "x", count: 129))), .invalidParameterValue, "id: must be at most 128 characters, got 129"),
            ("type missing", valid.setting(["type"], to: nil), .invalidParameterValue, "type: is required"),
            ("type an array", valid.setting(["type"], to: .array([])), .invalidParameterValue, "type: must be a string, got array"),
            ("type unknown", valid.setting(["type"], to: .string("notification.opened")), .invalidParameterValue, "type: must be one of notification.sent"),
            ("type in the wrong case", valid.setting(["type"], to: .string("Meeting.Cancelled")), .invalidParameterValue, "type: must be one of"),
            ("user_id missing", valid.setting(["user_id"], to: nil), .invalidParameterValue, "user_id: is required"),
            ("user_id empty", valid.setting(["user_id"], to: .string("")), .invalidParameterValue, "user_id: must not be empty"),
            ("user_id a boolean", valid.setting(["user_id"], to: .bool(true)), .invalidParameterValue, "user_id: must be a string, got boolean"),
            ("occurred_at missing", valid.setting(["occurred_at"], to: nil), .invalidParameterValue, "occurred_at: is required"),
            ("occurred_at a number", valid.setting(["occurred_at"], to: .number(1_763_800_000)), .invalidParameterValue, "occurred_at: must be a string"),
            ("occurred_at without zone", valid.setting(["occurred_at"], to: .string("2026-11-22T09:30:00")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339 date-time"),
            ("occurred_at a date only", valid.setting(["occurred_at"], to: .string("2026-11-22")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at month 13", valid.setting(["occurred_at"], to: .string("2026-13-01T00:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at 30 February", valid.setting(["occurred_at"], to: .string("2026-02-30T00:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at hour 24", valid.setting(["occurred_at"], to: .string("2026-11-22T24:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at words", valid.setting(["occurred_at"], to: .string("yesterday")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at 31 April", valid.setting(["occurred_at"], to: .string("2026-04-31T00:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at 29 February of a common year", valid.setting(["occurred_at"], to: .string("2025-02-29T00:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at day 00", valid.setting(["occurred_at"], to: .string("2026-11-00T00:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at minute 60", valid.setting(["occurred_at"], to: .string("2026-11-22T09:60:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at second 61", valid.setting(["occurred_at"], to: .string("2026-11-22T09:30:61Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at offset +16:00", valid.setting(["occurred_at"], to: .string("2026-11-22T09:30:00+16:00")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at offset minutes 60", valid.setting(["occurred_at"], to: .string("2026-11-22T09:30:00+01:60")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at year 0000", valid.setting(["occurred_at"], to: .string("0000-01-01T00:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            ("occurred_at ten fraction digits", valid.setting(["occurred_at"], to: .string("2026-11-22T09:30:00.1234567890Z")), .invalidDatetimeFormat, "occurred_at: must be an RFC 3339"),
            // Valid RFC 3339 times outside what the workers hold exactly (1900 through 2099 in UTC).
            ("occurred_at year 0 in UTC", valid.setting(["occurred_at"], to: .string("0001-01-01T00:00:00+01:00")), .invalidDatetimeFormat, "occurred_at: must be from 1900-01-01T00:00:00Z to 2099-12-31T23:59:59.999999Z"),
            ("occurred_at in 1899 in UTC", valid.setting(["occurred_at"], to: .string("1900-01-01T00:30:00+01:00")), .invalidDatetimeFormat, "occurred_at: must be from 1900-01-01T00:00:00Z"),
            ("occurred_at in 2100", valid.setting(["occurred_at"], to: .string("2100-01-01T00:00:00Z")), .invalidDatetimeFormat, "occurred_at: must be from 1900-01-01T00:00:00Z"),
            ("occurred_at in 9999", valid.setting(["occurred_at"], to: .string("9999-12-31T23:59:00Z")), .invalidDatetimeFormat, "occurred_at: must be from 1900-01-01T00:00:00Z"),
            ("occurred_at a leap second mid-month", valid.setting(["occurred_at"], to: .string("2016-12-30T23:59:60Z")), .invalidDatetimeFormat, "occurred_at: second 60 is a leap second"),
            ("occurred_at a leap second rounding to second 61", valid.setting(["occurred_at"], to: .string("2016-12-31T23:59:60.9999996Z")), .invalidDatetimeFormat, "occurred_at: second 60 is a leap second"),
            ("occurred_at a leap second with a fraction written as 23:59:60", valid.setting(["occurred_at"], to: .string("2016-12-31T23:59:60.5Z")), .invalidDatetimeFormat, "occurred_at: second 60 is a leap second"),
            ("occurred_at a leap second at noon", valid.setting(["occurred_at"], to: .string("2016-12-31T12:59:60Z")), .invalidDatetimeFormat, "occurred_at: second 60 is a leap second"),
            // In a boundary year the range rule casts the time: the leap-second rule comes first,
            // so this is refused with a message, not a cast error (which failed a whole batch).
            ("occurred_at a leap second rounding to second 61 in 2099", valid.setting(["occurred_at"], to: .string("2099-12-31T23:59:60.9999995Z")), .invalidDatetimeFormat, "occurred_at: second 60 is a leap second"),
            ("data missing", valid.setting(["data"], to: nil), .invalidParameterValue, "data: is required (an object)"),
            ("data a string", valid.setting(["data"], to: .string("x")), .invalidParameterValue, "data: is required (an object), got string"),
            ("an unknown field", valid.setting(["userId"], to: .string("ana")), .invalidParameterValue, "userId: unknown field"),
            // The producer's trace context (W3C), optional, never anything else.
            ("trace not an object", valid.setting(["trace"], to: .string("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")),
             .invalidParameterValue, "trace: must be an object with traceparent"),
            ("trace without traceparent", valid.setting(["trace"], to: .object([:])), .invalidParameterValue, "trace.traceparent: must be W3C trace context"),
            ("trace with text of its own", valid.setting(["trace"], to: .object(["traceparent": .string("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                                                                                 "note": .string("hello")])),
             .invalidParameterValue, "trace.note: unknown field"),
            ("traceparent in capitals", valid.setting(["trace"], to: .object(["traceparent": .string("00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01")])),
             .invalidParameterValue, "trace.traceparent: must be W3C trace context"),
            ("traceparent with a zero trace id", valid.setting(["trace"], to: .object(["traceparent": .string("00-00000000000000000000000000000000-00f067aa0ba902b7-01")])),
             .invalidParameterValue, "trace.traceparent: must be W3C trace context"),
            ("traceparent with a zero parent id", valid.setting(["trace"], to: .object(["traceparent": .string("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01")])),
             .invalidParameterValue, "trace.traceparent: must be W3C trace context"),
            ("traceparent of a later version with more", valid.setting(["trace"], to: .object(["traceparent": .string("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-ab")])),
             .invalidParameterValue, "trace.traceparent: must be W3C trace context"),
            ("traceparent a number", valid.setting(["trace"], to: .object(["traceparent": .number(7)])),
             .invalidParameterValue, "trace.traceparent: must be W3C trace context"),
            ("tracestate with a line break", valid.setting(["trace"], to: .object(["traceparent": .string("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                                                                                    "tracestate": .string("a=1\nb=2")])),
             .invalidParameterValue, "trace.tracestate: must be a string of at most 512"),
            ("tracestate too long", valid.setting(["trace"], to: .object(["traceparent": .string("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
                                                                           "tracestate": .string(String(repeating: "a", count: 513))])),
             .invalidParameterValue, "trace.tracestate: must be a string of at most 512"),
            ("not an object", .array([valid]), .invalidParameterValue, "event: must be a JSON object, got array"),
            ("response without request_id", EventJSON.response().setting(["data", "request_id"], to: nil), .invalidParameterValue, "data.request_id: is required"),
            ("response without action", EventJSON.response().setting(["data", "action"], to: nil), .invalidParameterValue, "data.action: is required"),
            ("response with empty action", EventJSON.response().setting(["data", "action"], to: .string("")), .invalidParameterValue, "data.action: must not be empty"),
            ("response without locked", EventJSON.response().setting(["data", "locked"], to: nil), .invalidParameterValue, "data.locked: is required"),
            ("response with locked a string", EventJSON.response().setting(["data", "locked"], to: .string("true")), .invalidParameterValue, "data.locked: must be a boolean, got string"),
            ("response with text a number", EventJSON.response().setting(["data", "text"], to: .number(1)), .invalidParameterValue, "data.text: must be a string, got number"),
            ("cancel without meeting_id", valid.setting(["data", "meeting_id"], to: nil), .invalidParameterValue, "data.meeting_id: is required"),
        ]
    }()

    @Test(arguments: SubmitPath.allCases)
    func eachMalformedEnvelopeIsRefusedAndNothingStored(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            for (name, event, sqlState, message) in Self.envelopeCases {
                let answer = try await Self.submit(event, on: db, via: path)
                #expect(answer.sqlState == sqlState, "\(name): \(answer)")
                #expect(answer.message?.hasPrefix(message) == true, "\(name): \(answer)")
            }
            #expect(try await Self.stored(db) == (0, 0))
        }
    }

    @Test(arguments: SubmitPath.allCases)
    func theLimitsThemselvesAreAccepted(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            let longID = String(repeating: "é", count: 128)  // characters, not bytes
            let answers = [
                try await Self.submit(EventJSON.cancelled().setting(["id"], to: .string(longID)), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("t1").setting(["occurred_at"], to: .string("2024-02-29T23:59:59.123456789-08:00")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("t2").setting(["occurred_at"], to: .string("2026-11-22t09:30:00z")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("t3").setting(["occurred_at"], to: .string("2026-11-22 09:30:00+05:30")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("t4").setting(["occurred_at"], to: .string("2026-12-31T23:59:59-15:59")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("t5").setting(["occurred_at"], to: .string("2026-01-31T00:00:00.5+14:00")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("first").setting(["occurred_at"], to: .string("1900-01-01T00:00:00Z")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("last").setting(["occurred_at"], to: .string("2099-12-31T23:59:59.999999Z")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("last-local").setting(["occurred_at"], to: .string("2100-01-01T00:59:59+01:00")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("leap-long-fraction").setting(["occurred_at"], to: .string("2016-12-31T15:59:60.9999994-08:00")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("leap").setting(["occurred_at"], to: .string("2016-12-31T23:59:60Z")), on: db, via: path),
                try await Self.submit(EventJSON.cancelled("leap-local").setting(["occurred_at"], to: .string("2015-06-30T16:59:60.5-07:00")), on: db, via: path),
                try await Self.submit(EventJSON.envelope("lock", "protected_data.unavailable", data: [:]), on: db, via: path),
                try await Self.submit(EventJSON.envelope("unlock", "protected_data.available", data: [:]), on: db, via: path),
                try await Self.submit(EventJSON.response("r-text").setting(["data", "text"], to: .string("see you")), on: db, via: path),
            ]
            for answer in answers {
                #expect(answer.sqlState == nil, "\(answer)")
            }
            let times = try await db.scalar("SELECT occurred_at = '2024-03-01T07:59:59.123457Z' FROM actiond.events WHERE id = 't1'", as: Bool.self)
            #expect(times, "the device's time is kept as the instant it names")
            // A leap second is the first instant of the next minute, as PostgreSQL reads it.
            #expect(try await db.scalar("SELECT occurred_at = '2017-01-01T00:00:00Z' FROM actiond.events WHERE id = 'leap'", as: Bool.self))
            #expect(try await db.scalar("SELECT occurred_at = '2015-07-01T00:00:00.5Z' FROM actiond.events WHERE id = 'leap-local'", as: Bool.self))
        }
    }

    /// Payload rules of notification.sent: mutation, SQLSTATE, message start.
    static let payloadCases: [(String, JSONValue, SQLState, String)] = {
        let valid = EventJSON.invitation()
        let aps = ["data", "payload", "aps"]
        return [
            ("request_id missing", valid.setting(["data", "request_id"], to: nil), .invalidParameterValue, "data.request_id: is required"),
            ("payload missing", valid.setting(["data", "payload"], to: nil), .invalidParameterValue, "data.payload: is required"),
            ("aps missing", valid.setting(aps, to: nil), .invalidParameterValue, "data.payload.aps: is required"),
            ("category missing", valid.setting(aps + ["category"], to: nil), .invalidParameterValue, "data.payload.aps.category: is required"),
            ("category unregistered", valid.setting(aps + ["category"], to: .string("BIRTHDAY")), .foreignKeyViolation, "data.payload.aps.category: is not a registered category"),
            ("a look-alike key beside a required one", valid.setting(["data", "payload", "MEETING_ID\u{212A}"], to: .string("m-2")), .invalidParameterValue, "data.payload: every key must be in Unicode normalization form NFC"),
            ("a decomposed key", valid.setting(["data", "payload", "CAFE\u{301}"], to: .string("x")), .invalidParameterValue, "data.payload: every key must be in Unicode normalization form NFC"),
            ("category in another case", valid.setting(aps + ["category"], to: .string("meeting_invitation")), .foreignKeyViolation, "data.payload.aps.category: is not a registered category"),
            ("MEETING_ID missing", valid.setting(["data", "payload", "MEETING_ID"], to: nil), .invalidParameterValue, "data.payload.MEETING_ID: is required as a string for category MEETING_INVITATION"),
            ("MEETING_ID a number", valid.setting(["data", "payload", "MEETING_ID"], to: .number(5)), .invalidParameterValue, "data.payload.MEETING_ID: is required as a string"),
            ("TIMER_ID missing", valid.setting(aps + ["category"], to: .string("TIMER_EXPIRED")), .invalidParameterValue, "data.payload.TIMER_ID: is required as a string for category TIMER_EXPIRED"),
            ("THREAD_ID missing", valid.setting(aps + ["category"], to: .string("MESSAGE")), .invalidParameterValue, "data.payload.THREAD_ID: is required as a string for category MESSAGE"),
            ("MESSAGE_ID missing", valid.setting(aps + ["category"], to: .string("MESSAGE")).setting(["data", "payload", "THREAD_ID"], to: .string("t")), .invalidParameterValue, "data.payload.MESSAGE_ID: is required as a string for category MESSAGE"),
            ("mutable-content without alert", valid.setting(aps + ["mutable-content"], to: .number(1)).setting(aps + ["alert"], to: nil), .invalidParameterValue, "data.payload.aps.alert: mutable-content 1 requires an alert with a title or body"),
            ("mutable-content with an empty alert", valid.setting(aps + ["mutable-content"], to: .number(1)).setting(aps + ["alert"], to: .object(["subtitle": .string("s")])), .invalidParameterValue, "data.payload.aps.alert: mutable-content 1 requires"),
            ("mutable-content with an empty string alert", valid.setting(aps + ["mutable-content"], to: .number(1)).setting(aps + ["alert"], to: .string("")), .invalidParameterValue, "data.payload.aps.alert: mutable-content 1 requires"),
            ("USER_ID of another user", valid.setting(["data", "payload", "USER_ID"], to: .string("bob")), .invalidParameterValue, "data.payload.USER_ID: must equal the envelope's user_id"),
            ("payload over 4096 bytes", valid.setting(["data", "payload", "pad"], to: .string(String(repeating: "x", count: 4100))), .invalidParameterValue, "data.payload: must be at most 4096 bytes of UTF-8 JSON"),
        ]
    }()

    @Test(arguments: SubmitPath.allCases)
    func eachPayloadRuleIsEnforcedAndNothingStored(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            for (name, event, sqlState, message) in Self.payloadCases {
                let answer = try await Self.submit(event, on: db, via: path)
                #expect(answer.sqlState == sqlState, "\(name): \(answer)")
                #expect(answer.message?.hasPrefix(message) == true, "\(name): \(answer)")
            }
            #expect(try await Self.stored(db) == (0, 0))
        }
    }

    @Test(arguments: SubmitPath.allCases)
    func payloadsThatFollowTheRulesAreAccepted(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            let valid = EventJSON.invitation()
            let aps = ["data", "payload", "aps"]
            let cases: [JSONValue] = [
                valid,
                valid.setting(["id"], to: .string("s2")).setting(aps + ["mutable-content"], to: .number(1)),
                valid.setting(["id"], to: .string("s3")).setting(aps + ["mutable-content"], to: .number(1)).setting(aps + ["alert"], to: .string("Body only")),
                valid.setting(["id"], to: .string("s4")).setting(aps + ["mutable-content"], to: .number(1)).setting(aps + ["alert"], to: .object(["body": .string("b")])),
                valid.setting(["id"], to: .string("s5")).setting(aps + ["mutable-content"], to: .number(0)).setting(aps + ["alert"], to: nil),
                valid.setting(["id"], to: .string("s6")).setting(["data", "payload", "USER_ID"], to: .string("ana")),
                EventJSON.envelope("s7", "notification.sent", data: ["request_id": .string("r7"), "payload": .object(["aps": .object(["category": .string("GENERAL")])])]),
            ]
            for event in cases {
                let answer = try await Self.submit(event, on: db, via: path)
                #expect(answer.sqlState == nil, "\(event.json): \(answer)")
            }
            #expect(try await Self.stored(db) == (cases.count, cases.count))
        }
    }

    /// The size rule counts compact UTF-8 JSON (what APNs receives), not jsonb's spaced text.
    @Test(arguments: SubmitPath.allCases)
    func payloadSizeIsMeasuredAsCompactJSON(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            func payload(padding: Int) -> JSONValue {
                .object([
                    "aps": .object(["category": .string("GENERAL"), "alert": .object(["title": .string("é"), "body": .string("b")])]),
                    "list": .array((1...20).map { .number(Double($0)) }),
                    "pad": .string(String(repeating: "x", count: padding)),
                ])
            }
            let overhead = payload(padding: 0).json.utf8.count
            let exact = payload(padding: 4096 - overhead)
            #expect(exact.json.utf8.count == 4096)
            func sent(_ id: String, _ payload: JSONValue) -> JSONValue {
                EventJSON.envelope(id, "notification.sent", data: ["request_id": .string(id), "payload": payload])
            }
            #expect(try await Self.submit(sent("fits", exact), on: db, via: path).sqlState == nil, "4096 compact bytes fit although jsonb text is longer")
            let over = try await Self.submit(sent("over", payload(padding: 4097 - overhead)), on: db, via: path)
            #expect(over.message == "data.payload: must be at most 4096 bytes of UTF-8 JSON, got 4097")
        }
    }

    @Test(arguments: SubmitPath.allCases)
    func aRolledBackTransactionLeavesNothing(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            try await db.client.withConnection { connection in
                try await connection.query("BEGIN", logger: db.logger).drain()
                guard case .result(let inside) = try await path.submit(EventJSON.invitation().json, on: connection, logger: db.logger) else {
                    Issue.record("expected accepted inside the transaction"); return
                }
                #expect(inside.contains("accepted"))
                try await connection.query("ROLLBACK", logger: db.logger).drain()
            }
            #expect(try await Self.stored(db) == (0, 0))
            // Submitted again after the rollback, it is new, not a duplicate.
            guard case .result(let json) = try await Self.submit(EventJSON.invitation(), on: db, via: path) else {
                Issue.record("expected accepted"); return
            }
            #expect(json.contains("accepted"))
        }
    }

    @Test(arguments: SubmitPath.allCases)
    func theSameEventFromManyConnectionsAtOnceIsStoredOnce(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            for round in 0..<5 {
                let event = EventJSON.invitation("race-\(round)", request: "race-\(round)")
                let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await Self.submit(event, on: db, via: path) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let accepted = answers.filter { if case .result(let json) = $0 { json.contains("accepted") } else { false } }
                let duplicates = answers.filter { if case .result(let json) = $0 { json.contains("duplicate") } else { false } }
                #expect(accepted.count == 1 && duplicates.count == 7, "round \(round): \(answers)")
            }
            #expect(try await Self.stored(db) == (5, 5))
        }
    }

    @Test(arguments: SubmitPath.allCases)
    func categoriesAreCheckedAgainstTheCurrentVersion(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            let registry = try CategoryRegistry(categories: [NotificationCategory(identifier: "GENERAL")])
            _ = try await db.client.withConnection { try await CategoryStore.load(registry, on: $0, logger: db.logger) }
            let answer = try await Self.submit(EventJSON.invitation(), on: db, via: path)
            #expect(answer.sqlState == .foreignKeyViolation, "MEETING_INVITATION is not in the current version")
        }
    }

    /// The log's request id is a notification's or a response's data.request_id (bounded by
    /// the rules). Another type's data may have a field of that name, of any length and with no
    /// rule on it: it is stored as data, not as the event's request id. (It was indexed once,
    /// and one longer than an index row may be failed the submit with SQLSTATE 54000, naming
    /// no field.)
    @Test(arguments: SubmitPath.allCases)
    func onlyNotificationsAndResponsesHaveARequestID(path: SubmitPath) async throws {
        try await TestDatabase.with { db in
            // Random hex (not compressible): about 6,000 bytes, over the 2,704 an index row may hold.
            let long = (0..<400).map { _ in String(UInt64.random(in: 1 << 60 ... .max), radix: 16) }.joined()
            let cancelled = EventJSON.cancelled().setting(["data", "request_id"], to: .string(long))
            let answers = [try await Self.submit(EventJSON.invitation(), on: db, via: path),
                           try await Self.submit(EventJSON.response(), on: db, via: path),
                           try await Self.submit(cancelled, on: db, via: path)]
            for answer in answers { #expect(answer.sqlState == nil, "\(answer)") }
            let rows = try await db.strings("""
                SELECT type || ' ' || coalesce(request_id, '-') || ' ' || (data ->> 'request_id' IS NOT NULL)::text
                FROM actiond.events ORDER BY position
                """)
            #expect(rows == ["notification.sent req-1 true", "notification.response req-1 true", "meeting.cancelled - true"])
            #expect(try await db.strings("SELECT event_id FROM actiond.report_trail WHERE request_id = 'req-1' ORDER BY position")
                    == ["sent-1", "resp-1"])
        }
    }
}

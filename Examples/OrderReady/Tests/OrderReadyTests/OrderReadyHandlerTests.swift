import ActiondKit
import Foundation
import OrderReady
import Testing

/// The handler's decisions and fold, without a database.
@Suite("ORDER_READY handler")
struct OrderReadyHandlerTests {
    let handler = OrderReadyHandler()
    let key = StateKey(id: "42", userID: "ana")
    let notification = SentNotification(requestID: "r1", userID: "ana", category: "ORDER_READY", sentAt: Date(timeIntervalSince1970: 0), keys: ["ORDER_ID": "42"])

    func response(_ action: String, at seconds: Double, text: String? = nil, max: Int = 3) -> CheckedResponse {
        let button = NotificationAction(identifier: action, title: action, textInput: text == nil ? nil : TextInput(buttonTitle: "Send", placeholder: ""))
        return CheckedResponse(action: .action(button, text: text.map { ProtectedText($0) }), stamp: DeviceStamp(occurredAt: Date(timeIntervalSince1970: seconds), eventID: "e\(seconds)"),
                               notification: notification, key: key, settings: HandlerSettings(["max_courier_messages": max]))
    }

    func fold(_ events: [OrderEvent], onto state: OrderState? = nil) -> OrderState? {
        events.reduce(state) { handler.apply($1, to: $0, key: key) }
    }

    @Test func theLatestChoiceByDeviceTimeStands() {
        let ready = fold(handler.sent(NewNotification(notification: notification, payload: [:], key: key, settings: HandlerSettings([:])), to: nil).events)
        #expect(ready == OrderState(orderID: "42"))
        let way = handler.respond(response("ON_MY_WAY_ACTION", at: 10), to: ready, shared: nil)
        #expect(way.outcome == .applied)
        let afterWay = fold(way.events, onto: ready)
        #expect(afterWay?.status == .onMyWay)
        let older = handler.respond(response("LEAVE_AT_DOOR_ACTION", at: 5), to: afterWay, shared: nil)
        #expect(older.outcome == .superseded && older.events.isEmpty)
        let newer = handler.respond(response("LEAVE_AT_DOOR_ACTION", at: 20), to: afterWay, shared: nil)
        #expect(fold(newer.events, onto: afterWay)?.status == .leaveAtDoor)
    }

    @Test func courierMessagesStopAtTheCategorysLimit() {
        var state: OrderState? = OrderState(orderID: "42")
        for index in 0..<2 {
            let decision = handler.respond(response("MESSAGE_COURIER_ACTION", at: Double(index), text: "hi", max: 2), to: state, shared: nil)
            #expect(decision.outcome == .applied && decision.events.first?.carriesProtectedText == true)
            state = fold(decision.events, onto: state)
        }
        #expect(handler.respond(response("MESSAGE_COURIER_ACTION", at: 9, text: "hi", max: 2), to: state, shared: nil).outcome == .rejected(reason: "message_limit"))
        #expect(state?.courierMessages == 2)
    }

    @Test func onlyACourierMessageNeedsProtectedData() {
        #expect(handler.needsProtectedData(response("MESSAGE_COURIER_ACTION", at: 0, text: "x").action))
        #expect(!handler.needsProtectedData(response("ON_MY_WAY_ACTION", at: 0).action))
        #expect(!handler.needsProtectedData(.opened))
    }

    @Test func versionOneEventsReadInTodaysShape() throws {
        let v1 = try DomainCoding.encode(OrderEventV1.answered(action: "LEAVE_AT_DOOR_ACTION", at: DeviceStamp(occurredAt: Date(timeIntervalSince1970: 7), eventID: "x")))
        #expect(try handler.decodeEvent(v1, version: 1) == .statusChosen(.leaveAtDoor, at: DeviceStamp(occurredAt: Date(timeIntervalSince1970: 7), eventID: "x")))
        #expect(throws: UnknownSchemaVersion.self) { try handler.decodeEvent(v1, version: 3) }
    }

    @Test func itJoinsTheBuiltInHandlersAndItsNameIsTakenOnce() throws {
        let handlers = try CategoryHandlers([handler])
        #expect(handlers.names == ["meeting_invitation", "message_thread", "order_ready", "timer"])
        #expect(handlers.requiredPayloadKeys(of: "order_ready") == ["ORDER_ID"])
        #expect(throws: HandlerSetError.self) { try CategoryHandlers([handler, handler]) }
    }
}

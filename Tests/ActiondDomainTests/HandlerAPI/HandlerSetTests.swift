import ActiondBuiltInHandlers
@testable import ActiondDomain
import Foundation
import Testing

/// The handlers of a build are checked as a whole: names a categories file can spell, one
/// owner for each stream kind, input type and report view, valid setting defaults.
@Suite("Handler set")
struct HandlerSetTests {
    func problems(_ handlers: [any CategoryHandler]) -> [String] {
        do {
            _ = try CategoryHandlers.withBuiltIn(handlers)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func theBuiltInHandlersAreOneValidSet() {
        #expect(CategoryHandlers.builtIn.names == ["meeting_invitation", "message_thread", "timer"])
        #expect(CategoryHandlers.builtIn.reportViews.map(\.view.name) == ["report_invitations", "report_threads", "report_timers"])
        #expect(problems([ProbeHandler()]).isEmpty)
    }

    static let cases: [(String, ProbeHandler, String)] = [
        ("a name a file cannot spell", ProbeHandler(name: "Order-Ready"), "a name is lowercase letters"),
        ("a built-in's name", ProbeHandler(name: "timer", stateKind: "probe"), "is given twice"),
        ("another handler's state kind", ProbeHandler(stateKind: "invitation"), "stream kind invitation is already meeting_invitation's"),
        ("actiond's own kind", ProbeHandler(stateKind: "notification"), "stream kind notification is already actiond's"),
        ("the aps key", ProbeHandler(requiredPayloadKeys: ["aps"]), "required payload key \"aps\""),
        ("a default below its minimum", ProbeHandler(settings: [HandlerSetting("limit", default: 0, minimum: 1)]), "setting limit has default 0 outside 1"),
        ("a setting twice", ProbeHandler(settings: [HandlerSetting("limit", default: 1), HandlerSetting("limit", default: 2)]), "setting \"limit\" must be a unique name"),
        ("a contract input", ProbeHandler(sharedInputs: [.notificationResponse: "request_id"]), "notification.response is routed by actiond itself"),
        ("a shared input without shared state", ProbeHandler(sharedInputs: [.meetingCancelled: "meeting_id"]), "needs a Shared state type"),
        ("an input without a namespace", ProbeHandler(sharedInputs: [EventType("delivered"): "parcel_id"]), "must be a namespace and a name"),
        ("an input spelt with capitals", ProbeHandler(sharedInputs: [EventType("Parcel.Delivered"): "parcel_id"]), "must be a namespace and a name"),
        ("an input with a look-alike letter", ProbeHandler(sharedInputs: [EventType("parcel.deliv\u{0435}red"): "parcel_id"]), "must be a namespace and a name"),
        ("an input named too long", ProbeHandler(sharedInputs: [EventType("parcel." + String(repeating: "d", count: 60)): "parcel_id"]), "at most 64 bytes"),
        ("an input whose field could inject SQL", ProbeHandler(sharedInputs: [EventType("parcel.delivered"): "id'--"]), "names data field"),
        ("required fields of an input it does not take", ProbeHandler(inputRequiredKeys: [EventType("parcel.delivered"): ["courier"]]), "which is not one of its sharedInputs"),
        ("the meeting handler's input again", ProbeHandler(sharedInputs: [.meetingCancelled: "meeting_id"]), "meeting.cancelled is already handled by meeting_invitation"),
        ("one of actiond's reports", ProbeHandler(reportView: ReportView(name: "report_queue", description: "", idColumn: "probe_id", columns: [])), "report_queue is one of actiond's own reports"),
        ("a built-in's report", ProbeHandler(reportView: ReportView(name: "report_timers", description: "", idColumn: "probe_id", columns: [])), "report view report_timers is already timer's"),
        ("a view name without report_", ProbeHandler(reportView: ReportView(name: "probes", description: "", idColumn: "probe_id", columns: [])), "must be report_ followed by"),
        ("a column named like user_id", ProbeHandler(reportView: ReportView(name: "report_probes", description: "", idColumn: "probe_id", columns: [ReportColumn("user_id", .text)])), "column \"user_id\" must be a unique name"),
        ("a column that could inject SQL", ProbeHandler(reportView: ReportView(name: "report_probes", description: "", idColumn: "probe_id", columns: [ReportColumn("x", .text, key: "a'); drop table actiond.events; --")])), "reads key"),
        ("shared columns without shared state", ProbeHandler(reportView: ReportView(name: "report_probes", description: "", idColumn: "probe_id", columns: [], sharedColumns: [ReportColumn("s", .text)])), "has shared columns but the handler keeps no shared state"),
    ]

    @Test(arguments: cases.indices)
    func eachRuleRefusesTheSet(_ index: Int) {
        let (what, handler, message) = Self.cases[index]
        let found = problems([handler])
        #expect(found.contains { $0.contains(message) }, "\(what): \(found)")
    }

    @Test func everyProblemIsReportedAtOnce() {
        let found = problems([ProbeHandler(name: "Bad Name", stateKind: "timer", requiredPayloadKeys: ["aps"])])
        #expect(found.count == 3, "\(found)")
    }

    @Test func aCategoriesFileNamingAnUnknownHandlerListsTheKnownOnes() throws {
        let handlers = try CategoryHandlers.withBuiltIn([ProbeHandler()])
        let error = #expect(throws: CategoryFileError.self) {
            try CategoryRegistry.parse(Data(#"{"categories":[{"identifier":"X","handler":"order_ready"}]}"#.utf8), handlers: handlers)
        }
        #expect(error?.problems.map(\.description) == ["$.categories[0].handler: unknown handler order_ready; this build knows: meeting_invitation, message_thread, probe, timer [unknown_handler]"])
        let registry = try CategoryRegistry.parse(Data(ProbeRun.categories.utf8), handlers: handlers)
        #expect(registry.requiredPayloadKeys["PROBE"] == ["PROBE_ID"])
    }
}

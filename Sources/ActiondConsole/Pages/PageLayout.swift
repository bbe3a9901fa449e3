import ActiondDomain
import Foundation
import HummingbirdAuth
import Logging

/// What every page's header and footer show: the title, the navigation, who is signed in,
/// whether actions are offered, and a notice after an action.
struct PageLayout: Sendable {
    struct NavItem: Sendable {
        let href: String
        let label: String
        let current: Bool
    }

    let title: String
    let nav: [NavItem]
    let operatorName: String
    let role: String
    let canAct: Bool
    let signedIn: Bool
    let readOnlyReason: String?
    let notice: String?

    static let pages: [(href: String, label: String)] = [
        ("/", "Overview"), ("/outcomes", "Outcomes"), ("/dead-letters", "Dead letters"), ("/person", "A person"),
        ("/categories", "Categories"), ("/pauses", "Pauses"), ("/audit", "Audit"),
    ]

    init(title: String, current: String, context: ConsoleContext, notice: String? = nil) {
        self.init(title: title, current: current, consoleOperator: context.consoleOperator, readOnlyReason: context.readOnlyReason,
                  signedIn: context.readOnlyReason == nil && context.sessions.session != nil, notice: notice)
    }

    init(title: String, current: String, consoleOperator: ConsoleOperator?, readOnlyReason: String?, signedIn: Bool, notice: String?) {
        self.title = title
        self.nav = PageLayout.pages.map { NavItem(href: $0.href, label: $0.label, current: $0.href == current) }
        self.operatorName = consoleOperator?.name ?? ""
        self.role = consoleOperator?.role.rawValue ?? ""
        self.canAct = consoleOperator?.mayAct ?? false
        self.signedIn = signedIn
        self.readOnlyReason = readOnlyReason
        self.notice = notice
    }
}

/// How pages write times, ages and counts.
enum Show {
    static func time(_ date: Date?) -> String {
        guard let date else { return "" }
        return date.formatted(Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt)
            .year().month().day().time(includingFractionalSeconds: false)) + " UTC"
    }

    /// What a built-in reason code means (`RejectionReason.meaning`); nil for a code of a
    /// team's handler, or none.
    static func meaning(ofReason code: String?) -> String? {
        code.flatMap(RejectionReason.init(rawValue:))?.meaning
    }

    static func age(seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "" }
        let whole = Int(seconds)
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        if whole < 86400 { return "\(whole / 3600) h \(whole % 3600 / 60) min" }
        return "\(whole / 86400) d \(whole % 86400 / 3600) h"
    }

    static func count(_ value: Int64?) -> String {
        (value ?? 0).formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
    }

    static func milliseconds(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value.formatted(.number.precision(.fractionLength(1)).locale(Locale(identifier: "en_US"))) + " ms"
    }
}

/// A URL's query, percent-encoded (names and values are the page's own or typed by the operator).
enum Query {
    static func string(_ items: [(String, String?)]) -> String {
        var components = URLComponents()
        components.queryItems = items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        let query = components.percentEncodedQuery ?? ""
        return query.isEmpty ? "" : "?" + query.replacingOccurrences(of: "+", with: "%2B")
    }
}

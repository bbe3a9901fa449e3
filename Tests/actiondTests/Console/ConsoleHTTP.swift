import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP requests to a running console, as a script or another site would send them:
/// redirects are not followed and no cookie is kept but the one given.
enum ConsoleHTTP {
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.timeoutIntervalForRequest = 30
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    static func get(_ url: String, cookie: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
        try await send("GET", url, body: nil, cookie: cookie, headers: headers)
    }

    /// A form POST; `headers` are what the sender adds (Origin, Sec-Fetch-Site).
    static func post(_ url: String, form: [(String, String)], cookie: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let body = form.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
        return try await send("POST", url, body: Data(body.utf8), cookie: cookie,
                              headers: headers.merging(["Content-Type": "application/x-www-form-urlencoded"]) { first, _ in first })
    }

    private static func send(_ method: String, _ url: String, body: Data?, cookie: String?, headers: [String: String]) async throws -> Answer {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { fields[key.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: fields, body: String(decoding: data, as: UTF8.self))
    }
}

import ActiondTestSupport
import Foundation

/// One HTTP/1.1 request over a socket of its own (`HTTPProbe.exchange`), for what URLSession
/// cannot send: a `Host` of the test's choosing, and a peer address other than 127.0.0.1
/// (`source`, such as 127.0.0.2, another loopback address).
enum RawHTTP {
    static func send(_ method: String = "GET", port: Int, path: String, host: String? = nil, headers: [(String, String)] = [],
                     body: String = "", from source: String = "127.0.0.1") async throws -> ConsoleHTTP.Answer {
        let head = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close",
                    "Content-Length: \(body.utf8.count)"] + headers.map { "\($0.0): \($0.1)" }
        let (text, closed) = try await HTTPProbe.exchange(port: port, head.joined(separator: "\r\n") + "\r\n\r\n" + body,
                                                          from: source, waitingForClose: 30)
        guard closed, let split = text.range(of: "\r\n\r\n") else { throw ConsoleTestError("no whole HTTP answer within 30 s: \(text)") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return ConsoleHTTP.Answer(status: status, headers: fields, body: String(text[split.upperBound...]))
    }
}

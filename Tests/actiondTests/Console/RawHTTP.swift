import Foundation

/// One HTTP/1.1 request over a socket of its own, for what URLSession cannot send: a `Host`
/// of the test's choosing, and a peer address other than 127.0.0.1 (the socket is bound to
/// `source`, such as 127.0.0.2, another loopback address, before it connects). Runs on a
/// thread of its own (blocking calls, 30 s timeouts).
enum RawHTTP {
    static func send(_ method: String = "GET", port: Int, path: String, host: String? = nil, headers: [(String, String)] = [],
                     body: String = "", from source: String = "127.0.0.1") async throws -> ConsoleHTTP.Answer {
        let head = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close",
                    "Content-Length: \(body.utf8.count)"] + headers.map { "\($0.0): \($0.1)" }
        let request = Array((head.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try exchange(request, port: port, source: source) })
            }
        }
    }

    private static func exchange(_ request: [UInt8], port: Int, source: String) throws -> ConsoleHTTP.Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ConsoleTestError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        func address(_ text: String, _ port: Int) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, text, &address.sin_addr)
            return address
        }
        var local = address(source, 0)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { throw ConsoleTestError("bind \(source): \(String(cString: strerror(errno)))") }
        var remote = address("127.0.0.1", port)
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw ConsoleTestError("connect: \(String(cString: strerror(errno)))") }
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw ConsoleTestError("write: \(String(cString: strerror(errno)))") }
            sent += written
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 { throw ConsoleTestError("read: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw ConsoleTestError("no HTTP answer: \(text)") }
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

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP GETs against a worker's operations endpoint, and free ports to run it on.
package enum HTTPProbe {
    /// The status and body of `GET http://127.0.0.1:PORT/PATH`, or nil when nothing answers.
    package static func get(port: Int, _ path: String) async -> (status: Int, body: String)? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.timeoutInterval = 10
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              let http = response as? HTTPURLResponse else { return nil }
        return (http.statusCode, String(decoding: data, as: UTF8.self))
    }

    /// A TCP port nobody listens on right now (the kernel's choice for port 0).
    package static func freePort() throws -> Int {
        let socket = try tcpSocket()
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The port a worker started with `--http-port 0` logged (JSON logs at notice), once it has.
    package static func loggedPort(_ standardError: () -> String, within seconds: Double = 30) async throws -> Int? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let range = standardError().range(of: #""http_port":"[0-9]+""#, options: .regularExpression) {
                return Int(standardError()[range].filter(\.isNumber))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// Sends `request` as it is on a new TCP connection to 127.0.0.1:`port` (from `source`, a
    /// loopback address such as 127.0.0.2, for a peer other than 127.0.0.1), then reads until
    /// the server closes the connection or `seconds` pass without it: what came back, and
    /// whether the server closed it (an HTTP/1.0 client reads to the end of the connection).
    package static func exchange(port: Int, _ request: String, from source: String = "127.0.0.1",
                                 waitingForClose seconds: Double) async throws -> (response: String, closed: Bool) {
        // Blocking calls, so on a thread of its own: on the tasks' pool, eight exchanges at
        // once would hold every thread the test's other work needs (2 on a 2-core machine).
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try blockingExchange(port: port, request, from: source, waitingForClose: seconds) }) }
        }
    }

    private static func blockingExchange(port: Int, _ request: String, from source: String,
                                         waitingForClose seconds: Double) throws -> (response: String, closed: Bool) {
        let socket = try tcpSocket()
        defer { close(socket) }
        var local = loopback(port: 0, address: source)
        let bound = withUnsafePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == bytes.count else { throw POSIXError(.EPIPE) }
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let waitMilliseconds = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&descriptor, 1, waitMilliseconds) > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<count]
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// A new TCP socket.
    private static func tcpSocket() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        return socket
    }

    /// `address`:`port` (0: the kernel's choice, for bind).
    private static func loopback(port: Int, address text: String = "127.0.0.1") -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(text)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP/1.1 to a server on 127.0.0.1 (chromedriver), on plain sockets. Not URLSession:
/// FoundationNetworking on Linux (before swift-corelibs-foundation#5527) fails on chromedriver's
/// headers, which have no space after the colon (`Content-Length:250`): "Failed writing header".
enum WebDriverHTTP {
    /// A port nothing listens on now, on 127.0.0.1.
    static func freePort() throws -> Int {
        let fd = try openSocket()
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw WebDriverError(error: "no free port", message: "bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func openSocket() throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw WebDriverError(error: "socket failed", message: "errno \(errno)") }
        return fd
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// One request on a new connection (`Connection: close`); the answer's body, whatever its
    /// status (WebDriver puts its errors in the body). Blocking: `send` runs it off the pool.
    static func exchange(port: Int, _ method: String, _ path: String, _ body: Data?, timeout: Int) throws -> Data {
        let fd = try openSocket()
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw WebDriverError(error: "no connection", message: "127.0.0.1:\(port): errno \(errno)") }
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            + "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body?.count ?? 0)\r\n\r\n"
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var request = Data(head.utf8) + (body ?? Data())
        while !request.isEmpty {
            let sent = request.withUnsafeBytes { sendBytes(fd, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else { throw WebDriverError(error: "send failed", message: "\(method) \(path): errno \(errno)") }
            request.removeFirst(sent)
        }
        var answer = Data(), buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw WebDriverError(error: "timeout", message: "\(method) \(path): no answer within \(timeout) s (errno \(errno))") }
            answer.append(contentsOf: buffer[..<count])
            // Done at Content-Length, in case the connection stays open.
            if let end = answer.firstRange(of: Data("\r\n\r\n".utf8)),
               let line = String(decoding: answer[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
                   .first(where: { $0.lowercased().hasPrefix("content-length:") }),
               let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
               answer.count - end.upperBound >= length { break }
        }
        guard let end = answer.firstRange(of: Data("\r\n\r\n".utf8)) else {
            throw WebDriverError(error: "not a WebDriver answer", message: "\(method) \(path): \(String(decoding: answer.prefix(300), as: UTF8.self))")
        }
        return Data(answer[end.upperBound...])
    }
}

#if canImport(Glibc)
private let sendBytes = Glibc.send
#else
private let sendBytes = Darwin.send
#endif

/// A JSON value, as WebDriver sends and receives them; literals build one.
enum WebDriverJSON: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
                ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([WebDriverJSON])
    case object([String: WebDriverJSON])

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(arrayLiteral elements: WebDriverJSON...) { self = .array(elements) }
    init(dictionaryLiteral elements: (String, WebDriverJSON)...) { self = .object(Dictionary(elements) { _, last in last }) }
    init(nilLiteral: ()) { self = .null }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let string = try? container.decode(String.self) { self = .string(string) }
        else if let array = try? container.decode([WebDriverJSON].self) { self = .array(array) }
        else { self = .object(try container.decode([String: WebDriverJSON].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var double: Double? { if case .number(let value) = self { value } else { nil } }
    /// The number when it is a whole one.
    var int: Int? { double.flatMap { Int(exactly: $0) } }
    var array: [WebDriverJSON]? { if case .array(let value) = self { value } else { nil } }
    var object: [String: WebDriverJSON]? { if case .object(let value) = self { value } else { nil } }
    subscript(key: String) -> WebDriverJSON? { object?[key] }
}

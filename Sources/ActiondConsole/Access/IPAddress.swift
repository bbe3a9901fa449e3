import Foundation

/// An IPv4 or IPv6 address as its bytes (4 or 16; an IPv4-mapped IPv6 address is its IPv4
/// address), parsed with the C library's `inet_pton`: for comparing a peer with a trusted
/// proxy's range and a name with the console's own.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    package let bytes: [UInt8]

    /// `text` as an address (`127.0.0.1`, `::1`, `[::1]`, `fe80::1%lo`), or nil when it is not one.
    package init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, String(text), &v6) == 1 {
            let all = withUnsafeBytes(of: &v6) { Array($0) }
            let mapped = all[0..<10].allSatisfy { $0 == 0 } && all[10] == 0xFF && all[11] == 0xFF
            bytes = mapped ? Array(all[12...]) : all
        } else {
            return nil
        }
    }

    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The usual text: `127.0.0.1`, `::1` (no brackets).
    package var description: String {
        var buffer = [CChar](repeating: 0, count: 64)
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = copy.withUnsafeMutableBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

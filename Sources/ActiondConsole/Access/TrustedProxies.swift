import Foundation

/// The peers whose user header `--behind-proxy` believes: address ranges in CIDR notation
/// (`--trusted-proxy 10.0.0.5/32`, `192.168.0.0/16`, `fd00::/8`); loopback only by default.
package struct TrustedProxies: Sendable, Equatable {
    /// One range: an address and how many of its leading bits must match.
    package struct Range: Sendable, Equatable {
        let address: IPAddress
        let prefix: Int

        /// `text` as `ADDRESS/BITS` or a bare address (all its bits), or nil when malformed.
        package init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(String(parts[0])) else { return nil }
            let bits = address.bytes.count * 8
            var prefix = bits
            if parts.count == 2 {
                guard let number = Int(parts[1]), (0...bits).contains(number) else { return nil }
                prefix = number
            }
            self.address = address
            self.prefix = prefix
        }

        package func contains(_ peer: IPAddress) -> Bool {
            guard peer.bytes.count == address.bytes.count else { return false }
            var left = prefix
            for (a, b) in zip(address.bytes, peer.bytes) {
                guard left > 0 else { return true }
                let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
                if a & mask != b & mask { return false }
                left -= 8
            }
            return true
        }
    }

    package let ranges: [Range]

    /// The default: this machine only.
    package static let loopback = ["127.0.0.0/8", "::1/128"]

    package init(ranges: [Range]) { self.ranges = ranges }

    /// The ranges, or the first that is not one (for a sentence naming it).
    package static func parse(_ texts: [String]) -> Result<TrustedProxies, RangeError> {
        var ranges: [Range] = []
        for text in texts {
            guard let range = Range(text.trimmingCharacters(in: .whitespaces)) else { return .failure(RangeError(text: text)) }
            ranges.append(range)
        }
        return .success(TrustedProxies(ranges: ranges))
    }

    package struct RangeError: Error, Equatable { package let text: String }

    /// Whether the request's peer is one of the trusted proxies; a peer with no IP address
    /// (none known, a Unix socket) is not.
    package func trusts(_ peer: IPAddress?) -> Bool {
        guard let peer else { return false }
        return ranges.contains { $0.contains(peer) }
    }
}

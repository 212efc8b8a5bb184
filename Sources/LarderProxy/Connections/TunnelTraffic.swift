import NIOHTTP1

/// What a client speaks on a tunnel it opened with `CONNECT`, told from the first bytes it sends.
///
/// Browsers send `ws://host:port` through an HTTP proxy as `CONNECT host:port` followed by a plain
/// HTTP upgrade, and `https://` as `CONNECT` followed by a TLS ClientHello: the first bytes say
/// which pipeline the tunnel needs (see `ConnectHandling`).
public enum TunnelTraffic: Sendable, Equatable {
    /// A TLS handshake: a handshake record (type 22) of protocol version 0x03 0x0N.
    case tls
    /// Plain HTTP/1: a request line starting with a method Larder's HTTP decoder knows and a space.
    case http
    /// Anything else.
    case other

    /// The longest method name worth waiting for (`UNSUBSCRIBE`): past it, bytes with no space are
    /// not an HTTP request line.
    private static let longestMethod = 11

    /// What `bytes` (everything the client has sent so far, from the first byte) are, or nil when
    /// more are needed to tell. At most 12 bytes are ever needed.
    static func classify<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> TunnelTraffic? {
        guard let first = bytes.first else { return nil }
        if first == 0x16 {
            // A TLS record header: type 22, then the version 0x03 0x0N (SSL 3.0 is 0x0300, TLS 1.0
            // to 1.3 are 0x0301 to 0x0304; a ClientHello's record says 0x0301 or 0x0303).
            var rest = bytes.dropFirst().makeIterator()
            guard let major = rest.next() else { return nil }
            guard major == 0x03 else { return .other }
            guard let minor = rest.next() else { return nil }
            return minor & 0xF0 == 0 ? .tls : .other
        }
        var method: [UInt8] = []
        for byte in bytes {
            if byte == UInt8(ascii: " ") {
                return Self.isKnownMethod(method) ? .http : .other
            }
            // Methods are upper-case tokens (the decoder is case-sensitive); M-SEARCH has a dash.
            guard (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "-"),
                method.count < Self.longestMethod
            else {
                return .other
            }
            method.append(byte)
        }
        return nil
    }

    private static func isKnownMethod(_ name: [UInt8]) -> Bool {
        guard !name.isEmpty else { return false }
        if case .RAW = HTTPMethod(rawValue: String(decoding: name, as: UTF8.self)) {
            return false
        }
        return true
    }
}

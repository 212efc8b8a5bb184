/// Which upstream addresses a client on another machine may make Larder reach (docs/SERVING.md,
/// "A shared box (LAN mode)"): never the box's own loopback or link-local addresses, which serve
/// the box alone (an admin page on `127.0.0.1`, a cloud's metadata on `169.254.169.254`), unless
/// the config lists them (`lan.allowUpstream`).
///
/// A name is judged twice: by its text where a request names a literal address or `localhost`, and
/// by the address it was connected to (a name that resolves to `127.0.0.1`, an address written
/// as `2130706433`), before anything is sent.
public struct UpstreamReach: Sendable, Hashable {
    /// One `lan.allowUpstream` entry: a network, and a port or any.
    public struct Allowance: Sendable, Hashable, CustomStringConvertible {
        /// The network's address bytes (4 or 16).
        public var network: [UInt8]
        /// The prefix length in bits.
        public var prefixLength: Int
        /// The one port allowed, nil for every port.
        public var port: Int?

        /// Parses `ADDRESS`, `ADDRESS/PREFIX`, `ADDRESS:PORT`, `[IPV6]:PORT` or `localhost:PORT`
        /// (`localhost` is `127.0.0.1`; list `[::1]` apart); nil when it is none of these.
        public init?(parsing text: String) {
            var rest = Substring(text.trimmingWhitespace())
            var port: Int?
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let after = rest[rest.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":"), let value = Int(after.dropFirst()), (1...65_535).contains(value) else { return nil }
                    port = value
                }
                rest = rest[rest.index(after: rest.startIndex)..<close]
            } else if rest.filter({ $0 == ":" }).count == 1, let colon = rest.firstIndex(of: ":") {
                guard let value = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(value) else { return nil }
                port = value
                rest = rest[..<colon]
            }
            var prefix: Int?
            if let slash = rest.firstIndex(of: "/") {
                guard port == nil, let value = Int(rest[rest.index(after: slash)...]) else { return nil }
                prefix = value
                rest = rest[..<slash]
            }
            let address = rest.lowercased() == "localhost" ? [127, 0, 0, 1] : UpstreamReach.addressBytes(String(rest))
            guard let address, (0...(address.count * 8)).contains(prefix ?? 0) else { return nil }
            self.network = UpstreamReach.masked(address, prefixLength: prefix ?? address.count * 8)
            self.prefixLength = prefix ?? address.count * 8
            self.port = port
        }

        /// Whether this entry covers `address` (4 or 16 bytes, IPv4-mapped IPv6 read as IPv4) at `port`.
        public func covers(_ address: [UInt8], port: Int) -> Bool {
            let address = UpstreamReach.unmapped(address)
            guard address.count == self.network.count, self.port == nil || self.port == port else { return false }
            return UpstreamReach.masked(address, prefixLength: self.prefixLength) == self.network
        }

        public var description: String {
            let address =
                self.network.count == 4
                ? self.network.map(String.init).joined(separator: ".")
                : "["
                    + stride(from: 0, to: 16, by: 2).map { String(UInt16(self.network[$0]) << 8 | UInt16(self.network[$0 + 1]), radix: 16) }
                    .joined(separator: ":") + "]"
            return address + "/\(self.prefixLength)" + (self.port.map { ":\($0)" } ?? "")
        }
    }

    /// What the config lists as reachable anyway.
    public var allowed: [Allowance]

    /// A reach that refuses the box's own addresses but those `allowed`.
    public init(allowed: [Allowance] = []) {
        self.allowed = allowed
    }

    /// Whether `address` (4 or 16 bytes) is the box's own: loopback (`127.0.0.0/8`, `::1`),
    /// link-local (`169.254.0.0/16`, `fe80::/10`) or unspecified (`0.0.0.0/8`, `::`, which reach
    /// this machine when connected to), IPv4-mapped forms included.
    public static func isBoxLocal(_ address: [UInt8]) -> Bool {
        let address = Self.unmapped(address)
        switch address.count {
        case 4:
            return address[0] == 127 || address[0] == 0 || (address[0] == 169 && address[1] == 254)
        case 16:
            let unspecifiedOrLoopback = address[0..<15].allSatisfy { $0 == 0 } && address[15] <= 1
            return unspecifiedOrLoopback || (address[0] == 0xfe && address[1] & 0xc0 == 0x80)
        default:
            return false
        }
    }

    /// Whether a connection to `address` at `port` may be made: it is not the box's own, or the
    /// config lists it.
    public func mayConnect(to address: [UInt8], port: Int) -> Bool {
        !Self.isBoxLocal(address) || self.allowed.contains { $0.covers(address, port: port) }
    }

    /// Whether a request may name `host` at `port`, judged by its text alone: `localhost` (and
    /// any `*.localhost`) is the box's loopback, an address literal is judged as an address; any
    /// other name is judged when it is connected to.
    public func mayName(host: String, port: Int) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        if host.hasSuffix(".") {
            host.removeLast()
        }
        if host == "localhost" || host.hasSuffix(".localhost") {
            return self.mayConnect(to: [127, 0, 0, 1], port: port) || self.mayConnect(to: Self.ipv6Loopback, port: port)
        }
        guard let address = Self.addressBytes(host) else { return true }
        return self.mayConnect(to: address, port: port)
    }

    /// Why a request to `host` from another machine is refused, for its `403` page and the log.
    public static func refusal(host: String, port: Int) -> String {
        "\(host):\(port) is this box's own address (loopback or link-local), which clients on other machines may not reach "
            + "through Larder; the config's lan.allowUpstream lists any that they may."
    }

    static let ipv6Loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]

    /// The bytes of an IPv4 dotted-quad or IPv6 text address (with `::` and an IPv4 tail, no zone),
    /// nil for anything else.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        if !text.contains(":") {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var bytes: [UInt8] = []
            for part in parts {
                guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part) else { return nil }
                bytes.append(value)
            }
            return bytes
        }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let tail = addressBytes(String(piece)) {
                    bytes += tail
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 {
            return head.count == 16 ? head : nil
        }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 bytes; anything else as it is.
    static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xff, address[11] == 0xff else {
            return address
        }
        return Array(address[12..<16])
    }

    static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(8, max(0, prefixLength - index * 8))
            return bits == 8 ? byte : byte & ~(UInt8(0xff) >> bits)
        }
    }
}

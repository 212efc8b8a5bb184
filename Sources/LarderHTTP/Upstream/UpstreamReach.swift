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
        /// The addresses it covers.
        public var network: IPNetwork
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
            let address = rest.lowercased() == "localhost" ? [127, 0, 0, 1] : IPNetwork.bytes(ofAddress: String(rest))
            guard let address, let network = IPNetwork(address: address, prefixLength: prefix) else { return nil }
            self.network = network
            self.port = port
        }

        /// Whether this entry covers `address` (4 or 16 bytes, IPv4-mapped IPv6 read as IPv4) at `port`.
        public func covers(_ address: [UInt8], port: Int) -> Bool {
            (self.port == nil || self.port == port) && self.network.contains(address)
        }

        public var description: String {
            let network =
                self.network.network.count == 16
                ? "[\(IPNetwork.text(ofAddress: self.network.network))]" : IPNetwork.text(ofAddress: self.network.network)
            return network + "/\(self.network.prefixLength)" + (self.port.map { ":\($0)" } ?? "")
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
        let address = IPNetwork.unmapped(address)
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
        guard let address = IPNetwork.bytes(ofAddress: host) else { return true }
        return self.mayConnect(to: address, port: port)
    }

    /// What a client may make Larder reach with this reach configured: anything from the box's own
    /// loopback (nil: no limit), this from another machine.
    public func forClient(onLoopback: Bool) -> UpstreamReach? {
        onLoopback ? nil : self
    }

    /// Why a request to `host` from another machine is refused, for its `403` page and the log.
    public static func refusal(host: String, port: Int) -> String {
        "\(host):\(port) is this box's own address (loopback or link-local), which clients on other machines may not reach "
            + "through Larder; the config's lan.allowUpstream lists any that they may."
    }

    static let ipv6Loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
}

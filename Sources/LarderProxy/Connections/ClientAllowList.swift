import LarderHTTP
import NIOCore

/// An IPv4 or IPv6 network in CIDR notation, e.g. `192.168.1.0/24` or `fd00::/8` (`--allow`): an
/// ``IPNetwork`` read from text by the system's address parser and matched against socket addresses.
public struct CIDR: Sendable, Hashable, CustomStringConvertible {
    private let network: IPNetwork

    /// Parses `address/prefix` (a bare address means a single host).
    public init(parsing text: String) throws(CIDRParseError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let bytes = Self.addressBytes(String(parts[0])) else {
            throw CIDRParseError(input: text, problem: "not an IPv4 or IPv6 address")
        }
        let maximum = bytes.count * 8
        var length = maximum
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...maximum).contains(parsed) else {
                throw CIDRParseError(input: text, problem: "prefix length must be a number from 0 to \(maximum)")
            }
            length = parsed
        }
        guard let network = IPNetwork(address: bytes, prefixLength: length) else {
            throw CIDRParseError(input: text, problem: "not an IPv4 or IPv6 address")
        }
        self.network = network
    }

    /// Whether `address` lies inside this network. IPv4-mapped IPv6 addresses match IPv4 networks.
    public func contains(_ address: SocketAddress) -> Bool {
        Self.addressBytes(address).map(self.network.contains) ?? false
    }

    /// `address/prefix`.
    public var description: String { self.network.description }

    /// Whether `address` is a loopback address (127.0.0.0/8, ::1, or IPv4-mapped loopback).
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        guard let bytes = self.addressBytes(address).map(IPNetwork.unmapped) else { return false }
        if bytes.count == 4 { return bytes[0] == 127 }
        return bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1
    }

    /// Whether `host` names this machine only: a loopback address literal (127.0.0.0/8, `::1`,
    /// bracketed or not) or `localhost`; a name that merely starts with `127.` does not.
    public static func isLoopback(host: String) -> Bool {
        if host == "localhost" { return true }
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address = try? SocketAddress(ipAddress: literal, port: 0) else { return false }
        return self.isLoopback(address)
    }

    private static func addressBytes(_ text: String) -> [UInt8]? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        return self.addressBytes(address)
    }

    private static func addressBytes(_ address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default:
            return nil
        }
    }
}

/// A CIDR that could not be parsed.
public struct CIDRParseError: Error, CustomStringConvertible, Hashable {
    /// The text given.
    public var input: String
    /// What is wrong with it.
    public var problem: String

    /// `'text' is not a valid CIDR: problem`.
    public var description: String { "'\(self.input)' is not a valid CIDR: \(self.problem)" }
}

/// Which clients the proxy serves: loopback always, plus the `--allow` networks.
public struct ClientAllowList: Sendable, Hashable {
    /// Networks allowed besides loopback.
    public var networks: [CIDR]

    /// Creates an allow list.
    public init(networks: [CIDR] = []) {
        self.networks = networks
    }

    /// Whether a client at `address` may use the proxy.
    public func allows(_ address: SocketAddress?) -> Bool {
        guard let address else { return false }
        if case .unixDomainSocket = address { return true }
        return CIDR.isLoopback(address) || self.networks.contains { $0.contains(address) }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// The hosts reached directly, not through the parent proxy: `NO_PROXY` as curl reads it.
///
/// Entries are separated by commas or spaces and matched case-insensitively, without ports:
/// `*` alone matches every host; a name matches itself and its subdomains (`example.com` and
/// `.example.com` both match `example.com` and `www.example.com`); an address matches itself and
/// a network (`10.0.0.0/8`, `fd00::/8`, `[::1]`) the addresses in it, when the host is given as an
/// address (names are not resolved).
public struct NoProxyList: Sendable, Hashable {
    private enum Entry: Sendable, Hashable {
        case everything
        case domain(String)
        case network(bytes: [UInt8], prefixLength: Int)
    }

    private let entries: [Entry]

    /// No host is excluded.
    public static let none = NoProxyList(parsing: "")

    /// Parses a `NO_PROXY` value; entries that mean nothing (a bad prefix length) are skipped, as
    /// curl skips them.
    public init(parsing text: String) {
        var entries: [Entry] = []
        for item in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            var entry = item.lowercased()
            if entry == "*" {
                entries.append(.everything)
                continue
            }
            if entry.hasPrefix("[") {
                entry = String(entry.filter { $0 != "[" && $0 != "]" })
            }
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            if let bytes = Self.addressBytes(String(parts[0])) {
                let maximum = bytes.count * 8
                let length = parts.count == 2 ? Int(parts[1]) : maximum
                if let length, (0...maximum).contains(length) {
                    entries.append(.network(bytes: Self.masked(bytes, prefixLength: length), prefixLength: length))
                }
                continue
            }
            while entry.hasPrefix(".") { entry.removeFirst() }
            while entry.hasSuffix(".") { entry.removeLast() }
            if !entry.isEmpty {
                entries.append(.domain(entry))
            }
        }
        self.entries = entries
    }

    /// Whether no entry was given.
    public var isEmpty: Bool {
        self.entries.isEmpty
    }

    /// Whether `host` (a name, or an address with or without IPv6 brackets) is reached directly.
    public func matches(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        while name.hasSuffix(".") { name.removeLast() }
        let address = Self.addressBytes(name)
        return self.entries.contains { entry in
            switch entry {
            case .everything:
                return true
            case .domain(let domain):
                return name == domain || name.hasSuffix("." + domain)
            case .network(let bytes, let prefixLength):
                guard let address, address.count == bytes.count else { return false }
                return Self.masked(address, prefixLength: prefixLength) == bytes
            }
        }
    }

    /// The bytes of an IPv4 or IPv6 address literal, nil for anything else.
    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: v6) { Array($0) }
        }
        return nil
    }

    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bitsInByte = max(0, min(8, prefixLength - index * 8))
            return bitsInByte == 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xff << (8 - bitsInByte))
        }
    }
}

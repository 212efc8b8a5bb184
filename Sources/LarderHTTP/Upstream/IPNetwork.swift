/// An IPv4 or IPv6 network: an address masked to a prefix length, e.g. `192.168.1.0/24`,
/// `fd00::/8` (`--allow`), `169.254.0.0/16` (`lan.allowUpstream`). Addresses are their bytes, 4
/// or 16; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is read as its IPv4 address.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The masked address bytes (4 or 16).
    public let network: [UInt8]
    /// The prefix length in bits.
    public let prefixLength: Int

    /// The network of `address` (4 or 16 bytes) and `prefixLength` (nil: the address alone); nil
    /// for another length, or a prefix longer than the address.
    public init?(address: [UInt8], prefixLength: Int? = nil) {
        guard address.count == 4 || address.count == 16 else { return nil }
        let length = prefixLength ?? address.count * 8
        guard (0...(address.count * 8)).contains(length) else { return nil }
        self.network = Self.masked(address, prefixLength: length)
        self.prefixLength = length
    }

    /// Whether `address` (4 or 16 bytes) lies inside this network.
    public func contains(_ address: [UInt8]) -> Bool {
        let address = Self.unmapped(address)
        guard address.count == self.network.count else { return false }
        return Self.masked(address, prefixLength: self.prefixLength) == self.network
    }

    /// `address/prefix`.
    public var description: String {
        "\(Self.text(ofAddress: self.network))/\(self.prefixLength)"
    }

    /// The bytes of an IPv4 dotted-quad or IPv6 text address (with `::` and an IPv4 tail, no zone),
    /// nil for anything else.
    public static func bytes(ofAddress text: String) -> [UInt8]? {
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
                if index == pieces.count - 1, piece.contains("."), let tail = IPNetwork.bytes(ofAddress: String(piece)) {
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

    /// The text of an address's bytes: dotted for IPv4, eight hex groups for IPv6.
    public static func text(ofAddress bytes: [UInt8]) -> String {
        guard bytes.count == 16 else { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as its IPv4 bytes; anything else as it is.
    public static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xff, address[11] == 0xff else {
            return address
        }
        return Array(address[12..<16])
    }

    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(8, max(0, prefixLength - index * 8))
            return bits == 8 ? byte : byte & ~(UInt8(0xff) >> bits)
        }
    }
}

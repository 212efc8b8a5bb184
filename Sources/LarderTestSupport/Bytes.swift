import Crypto

/// Bytes to compare in a test expectation: `#expect(Bytes(a) == Bytes(b))`.
///
/// Not a collection on purpose: when `#expect(a == b)` fails on two large arrays, Swift Testing
/// computes an element-wise difference that can run for hours. This prints a summary instead.
public struct Bytes: Equatable, CustomStringConvertible, Sendable {
    /// The bytes.
    public let value: [UInt8]

    /// Wraps bytes.
    public init<Source: Sequence>(_ source: Source) where Source.Element == UInt8 {
        self.value = Array(source)
    }

    /// Count and SHA-256 prefix, e.g. `200000 bytes (sha256 3f2a9c01…)`.
    public var description: String {
        let digest = SHA256.hash(data: self.value).prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
        return "\(self.value.count) bytes (sha256 \(digest)…)"
    }
}

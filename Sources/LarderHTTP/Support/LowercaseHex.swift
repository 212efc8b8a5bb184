/// Lower-case hexadecimal, the one way digests (body hashes, GraphQL body keys, manifest
/// revisions) and JSON's `\u00XX` escapes are written.
public enum LowercaseHex {
    /// The digit for `value`, which must be below 16.
    @inline(__always)
    public static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }

    /// Two digits per byte of `bytes`, high nibble first.
    public static func string(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var index = 0
            for byte in bytes {
                text[index] = Self.digit(byte >> 4)
                text[index + 1] = Self.digit(byte & 0x0F)
                index += 2
            }
            return index
        }
    }
}

/// Byte-level helpers for RFC 3986 percent-encoding, on UTF-8 bytes.
public enum PercentEncoding {
    /// Whether `byte` is an RFC 3986 unreserved character: ALPHA, DIGIT, `-`, `.`, `_`, `~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// The value of an ASCII hex digit, or nil.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The upper-case ASCII hex digit for a value 0...15.
    public static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// `byte` as an escape: `%` and two upper-case hex digits.
    public static func escape(_ byte: UInt8) -> [UInt8] {
        [UInt8(ascii: "%"), Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0x0F)]
    }

    /// Percent-encodes every byte outside ASCII (as browsers do before sending a URL); others are kept.
    public static func encodingNonASCII<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        Self.encoding(bytes) { $0 < 0x80 }
    }

    /// Percent-encodes every byte but the unreserved ones, so that any text can travel as one URL
    /// component or form field.
    public static func encodingAllButUnreserved<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        Self.encoding(bytes, keeping: Self.isUnreserved)
    }

    private static func encoding<Bytes: Collection<UInt8>>(_ bytes: Bytes, keeping isKept: (UInt8) -> Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for byte in bytes {
            if isKept(byte) {
                output.append(byte)
            } else {
                output.append(contentsOf: Self.escape(byte))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986 6.2.2.1/6.2.2.2 normalisation: escapes of unreserved characters are decoded, every
    /// other escape gets upper-case hex. A `%` not followed by two hex digits is left as it is.
    public static func normalized<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> [UInt8] where Bytes.Index == Int {
        Self.rewritingEscapes(bytes) { decoded, output in
            // A hex digit decoded after a stray "%" or "%X" would make a new escape ("%%41" is
            // not "%A"), and normalising again would change the URL; such escapes are kept.
            let makesEscape =
                Self.hexValue(decoded) != nil
                && (output.last == UInt8(ascii: "%")
                    || (output.count >= 2 && output[output.count - 2] == UInt8(ascii: "%")
                        && Self.hexValue(output[output.count - 1]) != nil))
            if Self.isUnreserved(decoded) && !makesEscape {
                output.append(decoded)
            } else {
                output.append(contentsOf: Self.escape(decoded))
            }
        }
    }

    /// Fully decodes percent-escapes (not `+`, which only forms make a space): each `%` and two hex
    /// digits (either case) is a byte, a `%` without two hex digits stays as it is, and the bytes are
    /// read as UTF-8 (invalid sequences become U+FFFD).
    public static func decoded<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> String where Bytes.Index == Int {
        String(decoding: Self.rewritingEscapes(bytes) { decoded, output in output.append(decoded) }, as: UTF8.self)
    }

    /// `bytes` with every escape (`%` and two hex digits) replaced by what `rewrite` appends for its
    /// byte; everything else, a stray `%` included, is copied.
    private static func rewritingEscapes<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes,
        _ rewrite: (_ decoded: UInt8, _ output: inout [UInt8]) -> Void
    ) -> [UInt8] where Bytes.Index == Int {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = Self.hexValue(bytes[index + 1]), let low = Self.hexValue(bytes[index + 2])
            {
                rewrite(high << 4 | low, &output)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }
}

/// The fields of an `application/x-www-form-urlencoded` text: a POST form body or a URL query.
///
/// Parsed as the WHATWG URL standard says: `&`-separated `name=value` pairs, `+` is a space, `%XX`
/// escapes are bytes of UTF-8 (invalid sequences become U+FFFD; a `%` without two hex digits stays).
struct FormFields: Sendable {
    /// The pairs, in order (a name may repeat).
    var pairs: [(name: String, value: String)]

    /// Parses `text` (nil or empty: no fields).
    init(_ text: String?) {
        guard let text, !text.isEmpty else {
            self.pairs = []
            return
        }
        self.pairs = text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            return (name, value)
        }
    }

    /// The first value of `name`, or nil.
    subscript(_ name: String) -> String? {
        self.pairs.first { $0.name == name }?.value
    }

    /// `name=value&...` with every byte outside the URL-safe set percent-encoded, for links.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(Self.encodeComponent($0.0))=\(Self.encodeComponent($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes everything but ASCII letters, digits and `-._~`.
    static func encodeComponent(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(hex[Int(byte >> 4)])
                output.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }

    private static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                let high = Self.hexValue(input[index + 1]), let low = Self.hexValue(input[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 2
            } else {
                bytes.append(byte)
            }
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

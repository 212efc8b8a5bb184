import Foundation
import LarderHTTP

/// The index's JSON form of a header list: `[["Content-Type","text/html"],...]`.
enum HeaderListCoding {
    static func encode(_ headers: [HeaderField]) -> String {
        // Every stored response encodes its headers: written directly, as JSONEncoder would
        // (no whitespace, `/` unescaped, control characters as `\uXXXX`).
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(headers.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 })
        for (index, field) in headers.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            self.appendString(field.name, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            self.appendString(field.value, to: &bytes)
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(LowercaseHex.digit(byte >> 4))
                bytes.append(LowercaseHex.digit(byte & 0x0F))
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The header list, or nil when the text is not a JSON array of `[name, value]` pairs.
    static func decode(_ text: String) -> [HeaderField]? {
        // Every cache hit decodes its row's headers: the fast path reads the form `encode` writes
        // without Foundation's JSONDecoder; anything unusual goes the general way.
        if let headers = self.decodeCompact(text) {
            return headers
        }
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)) else {
            return nil
        }
        var headers: [HeaderField] = []
        headers.reserveCapacity(pairs.count)
        for pair in pairs {
            guard pair.count == 2 else {
                return nil
            }
            headers.append(HeaderField(name: pair[0], value: pair[1]))
        }
        return headers
    }

    /// Decodes `[["name","value"],...]` with no whitespace and JSON string escapes; nil for anything
    /// else (including `\u` escapes, left to the general decoder).
    static func decodeCompact(_ text: String) -> [HeaderField]? {
        var text = text
        return text.withUTF8 { bytes -> [HeaderField]? in
            var index = 0
            func expect(_ byte: UInt8) -> Bool {
                guard index < bytes.count, bytes[index] == byte else { return false }
                index += 1
                return true
            }
            func string() -> String? {
                guard expect(UInt8(ascii: "\"")) else { return nil }
                let start = index
                var plain = true
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") {
                        plain = false
                        index += 1
                    }
                    index += 1
                }
                guard index < bytes.count else { return nil }
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if plain {
                    return String(decoding: raw, as: UTF8.self)
                }
                var unescaped: [UInt8] = []
                unescaped.reserveCapacity(raw.count)
                var position = 0
                while position < raw.count {
                    var byte = raw[position]
                    if byte == UInt8(ascii: "\\") {
                        position += 1
                        switch raw[position] {
                        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte = raw[position]
                        case UInt8(ascii: "b"): byte = 0x08
                        case UInt8(ascii: "f"): byte = 0x0C
                        case UInt8(ascii: "n"): byte = 0x0A
                        case UInt8(ascii: "r"): byte = 0x0D
                        case UInt8(ascii: "t"): byte = 0x09
                        default: return nil
                        }
                    }
                    unescaped.append(byte)
                    position += 1
                }
                return String(decoding: unescaped, as: UTF8.self)
            }
            guard expect(UInt8(ascii: "[")) else { return nil }
            var headers: [HeaderField] = []
            if expect(UInt8(ascii: "]")) {
                return index == bytes.count ? headers : nil
            }
            repeat {
                guard expect(UInt8(ascii: "[")), let name = string(), expect(UInt8(ascii: ",")), let value = string(),
                    expect(UInt8(ascii: "]"))
                else { return nil }
                headers.append(HeaderField(name: name, value: value))
            } while expect(UInt8(ascii: ","))
            guard expect(UInt8(ascii: "]")), index == bytes.count else { return nil }
            return headers
        }
    }
}

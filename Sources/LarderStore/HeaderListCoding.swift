import Foundation

/// The index's JSON form of a header list: `[["Content-Type","text/html"],...]`.
enum HeaderListCoding {
    static func encode(_ headers: [HeaderField]) -> String {
        let pairs = headers.map { [$0.name, $0.value] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding an array of strings cannot fail; an empty list is the safe fallback regardless.
        guard let data = try? encoder.encode(pairs) else {
            return "[]"
        }
        return String(decoding: data, as: UTF8.self)
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

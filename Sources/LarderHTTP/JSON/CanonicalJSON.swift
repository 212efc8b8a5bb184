/// One byte form per JSON value, so that documents that mean the same give the same key: no
/// whitespace; object members sorted by the UTF-8 bytes of their decoded names, a repeated name
/// keeping its last value (as ``JSONValue`` lookups do); strings re-escaped minimally (only `"`,
/// `\` and control characters; other characters as UTF-8); numbers as written, except that an
/// exponent's `E` is written `e` (so `1.0` and `1` differ: JSON does not say they are equal).
public enum CanonicalJSON {
    /// The canonical bytes of `value`.
    public static func bytes(of value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        self.write(value, to: &output)
        return output
    }

    private static func write(_ value: JSONValue, to output: inout [UInt8]) {
        switch value.kind {
        case .null:
            output += Array("null".utf8)
        case .bool(let flag):
            output += Array((flag ? "true" : "false").utf8)
        case .number(let number):
            output += number.text.utf8.map { $0 == UInt8(ascii: "E") ? UInt8(ascii: "e") : $0 }
        case .string(let string):
            self.write(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                self.write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            var last: [String: JSONValue] = [:]
            for member in members {
                last[member.name] = member.value
            }
            let names = last.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            output.append(UInt8(ascii: "{"))
            for (index, name) in names.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                self.write(name, to: &output)
                output.append(UInt8(ascii: ":"))
                self.write(last[name]!, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func write(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: output += Array("\\u00".utf8) + [LowercaseHex.digit(byte >> 4), LowercaseHex.digit(byte & 0x0F)]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// The value as compact JSON text: members in document order, numbers as written, strings
    /// with only the escapes JSON requires.
    public var serialized: String {
        var text = ""
        self.write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self.kind {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let number): text += number.text
        case .string(let string): Self.writeString(string, to: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { text += "," }
                Self.writeString(member.name, to: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    /// Writes `string` as a JSON string literal.
    static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// The value with `transform` applied to every string in it (not to member names).
    public func mappingStrings<E: Error>(_ transform: (String) throws(E) -> String) throws(E) -> JSONValue {
        switch self.kind {
        case .string(let string):
            return JSONValue(.string(try transform(string)), line: self.line)
        case .array(let elements):
            var mapped: [JSONValue] = []
            for element in elements { mapped.append(try element.mappingStrings(transform)) }
            return JSONValue(.array(mapped), line: self.line)
        case .object(let members):
            var mapped: [JSONMember] = []
            for var member in members {
                member.value = try member.value.mappingStrings(transform)
                mapped.append(member)
            }
            return JSONValue(.object(mapped), line: self.line)
        default:
            return self
        }
    }
}

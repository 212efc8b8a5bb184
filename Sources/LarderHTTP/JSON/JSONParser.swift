/// A strict RFC 8259 JSON parser over UTF-8 bytes whose errors give a line, column and byte offset.
///
/// Every value keeps the line it starts on, so that what reads a document can say where a
/// value it does not accept is. Foundation's `JSONSerialization` is not used because it does not
/// tell booleans from numbers portably and its error positions differ between platforms.
public struct JSONParser {
    /// How deeply arrays and objects may nest; deeper documents are refused rather than risking the stack.
    public static let maximumDepth = 256

    private let bytes: [UInt8]
    private var index = 0
    /// The 1-based line of `index`; strings cannot hold a raw line feed, so only whitespace moves it.
    private var line = 1

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON document (any value at the top level, a leading UTF-8 byte-order mark allowed).
    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            parser.index = 3
        }
        parser.skipWhitespace()
        guard parser.index < bytes.count else {
            throw parser.error("the document is empty")
        }
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected \(parser.describeCurrent()) after the JSON value")
        }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard self.index < self.bytes.count else {
            throw self.error("unexpected end of the document; expected a value")
        }
        let line = self.line
        let kind: JSONValue.Kind
        switch self.bytes[self.index] {
        case UInt8(ascii: "{"):
            kind = try self.parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            kind = try self.parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            kind = .string(try self.parseString())
        case UInt8(ascii: "t"):
            try self.expectLiteral("true")
            kind = .bool(true)
        case UInt8(ascii: "f"):
            try self.expectLiteral("false")
            kind = .bool(false)
        case UInt8(ascii: "n"):
            try self.expectLiteral("null")
            kind = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            kind = .number(try self.parseNumber())
        default:
            throw self.error("unexpected \(self.describeCurrent()); expected a value")
        }
        return JSONValue(kind, line: line)
    }

    private mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue.Kind {
        guard depth <= Self.maximumDepth else {
            throw self.error("arrays and objects are nested more than \(Self.maximumDepth) deep")
        }
        self.index += 1  // "{"
        var members: [JSONMember] = []
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "}")) {
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else {
                throw self.error("unexpected \(self.describeCurrent()); expected a member name in double quotes")
            }
            let line = self.line
            let name = try self.parseString()
            self.skipWhitespace()
            guard self.consume(UInt8(ascii: ":")) else {
                throw self.error("unexpected \(self.describeCurrent()); expected \":\" after a member name")
            }
            self.skipWhitespace()
            let value = try self.parseValue(depth: depth)
            members.append(JSONMember(name: name, line: line, value: value))
            self.skipWhitespace()
            if self.consume(UInt8(ascii: ",")) {
                continue
            }
            if self.consume(UInt8(ascii: "}")) {
                return .object(members)
            }
            throw self.error("unexpected \(self.describeCurrent()); expected \",\" or \"}\" after an object member")
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue.Kind {
        guard depth <= Self.maximumDepth else {
            throw self.error("arrays and objects are nested more than \(Self.maximumDepth) deep")
        }
        self.index += 1  // "["
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.consume(UInt8(ascii: "]")) {
            return .array(elements)
        }
        while true {
            self.skipWhitespace()
            elements.append(try self.parseValue(depth: depth))
            self.skipWhitespace()
            if self.consume(UInt8(ascii: ",")) {
                continue
            }
            if self.consume(UInt8(ascii: "]")) {
                return .array(elements)
            }
            throw self.error("unexpected \(self.describeCurrent()); expected \",\" or \"]\" after an array element")
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = self.index
        self.index += 1  // opening quote
        var output: [UInt8] = []
        while true {
            guard self.index < self.bytes.count else {
                throw self.error("unterminated string", at: start)
            }
            let byte = self.bytes[self.index]
            switch byte {
            case UInt8(ascii: "\""):
                self.index += 1
                guard let string = String(validating: output, as: UTF8.self) else {
                    throw self.error("the string is not valid UTF-8", at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                try self.parseEscape(into: &output)
            case 0x00..<0x20:
                throw self.error("control character 0x\(Self.hex(byte)) in a string; it must be escaped")
            default:
                output.append(byte)
                self.index += 1
            }
        }
    }

    /// Parses the escape at `index` (a backslash) and appends its UTF-8.
    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONSyntaxError) {
        let escapeStart = self.index
        self.index += 1
        guard self.index < self.bytes.count else {
            throw self.error("unterminated escape sequence", at: escapeStart)
        }
        let letter = self.bytes[self.index]
        self.index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(letter)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = UInt32(try self.parseHex4(escapeStart: escapeStart))
            if (0xD800..<0xDC00).contains(scalarValue) {
                // A high surrogate is only meaningful followed by an escaped low surrogate.
                if self.bytes[self.index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) {
                    let save = self.index
                    self.index += 2
                    let low = UInt32(try self.parseHex4(escapeStart: save))
                    if (0xDC00..<0xE000).contains(low) {
                        scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        self.index = save
                    }
                }
            }
            // Lone surrogates become U+FFFD, as JavaScript's TextDecoder would show them.
            let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
            output.append(contentsOf: Array(String(scalar).utf8))
        default:
            throw self.error("invalid escape sequence \"\\\(Self.printable(letter))\"", at: escapeStart)
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt16 {
        guard self.index + 4 <= self.bytes.count else {
            throw self.error("\\u must be followed by four hex digits", at: escapeStart)
        }
        var value: UInt16 = 0
        for byte in self.bytes[self.index..<(self.index + 4)] {
            guard let digit = Self.hexValue(byte) else {
                throw self.error("\\u must be followed by four hex digits", at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
        }
        self.index += 4
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = self.index
        _ = self.consume(UInt8(ascii: "-"))
        guard self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) else {
            throw self.error("unexpected \(self.describeCurrent()); expected a digit")
        }
        if self.bytes[self.index] == UInt8(ascii: "0") {
            self.index += 1
        } else {
            self.skipDigits()
        }
        if self.consume(UInt8(ascii: ".")) {
            guard self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) else {
                throw self.error("unexpected \(self.describeCurrent()); expected a digit after \".\"")
            }
            self.skipDigits()
        }
        if self.consume(UInt8(ascii: "e")) || self.consume(UInt8(ascii: "E")) {
            if !self.consume(UInt8(ascii: "+")) {
                _ = self.consume(UInt8(ascii: "-"))
            }
            guard self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) else {
                throw self.error("unexpected \(self.describeCurrent()); expected a digit in the exponent")
            }
            self.skipDigits()
        }
        return JSONNumber(text: String(decoding: self.bytes[start..<self.index], as: UTF8.self))
    }

    private mutating func expectLiteral(_ literal: String) throws(JSONSyntaxError) {
        let expected = Array(literal.utf8)
        guard self.bytes[self.index...].starts(with: expected) else {
            throw self.error("unexpected \(self.describeCurrent()); expected a value")
        }
        self.index += expected.count
    }

    private mutating func skipDigits() {
        while self.index < self.bytes.count, Self.isDigit(self.bytes[self.index]) {
            self.index += 1
        }
    }

    private mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case UInt8(ascii: "\n"):
                self.line += 1
                self.index += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                self.index += 1
            default:
                return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        if self.index < self.bytes.count, self.bytes[self.index] == byte {
            self.index += 1
            return true
        }
        return false
    }

    /// The byte at `index` for a message: `"x"`, `byte 0xC3`, or `end of the document`.
    private func describeCurrent() -> String {
        guard self.index < self.bytes.count else {
            return "end of the document"
        }
        let byte = self.bytes[self.index]
        if byte >= 0x21 && byte < 0x7F {
            return "\"\(Self.printable(byte))\""
        }
        return "byte 0x\(Self.hex(byte))"
    }

    private func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let offset = min(offset ?? self.index, self.bytes.count)
        let lineStart = self.bytes[..<offset].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let line = 1 + self.bytes[..<offset].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        return JSONSyntaxError(offset: offset, line: line, column: offset - lineStart + 1, message: message)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "0x\(Self.hex(byte))"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]], as: UTF8.self)
    }
}

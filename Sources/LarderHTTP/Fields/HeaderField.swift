/// A header name/value pair in wire order.
public struct HeaderField: Sendable, Hashable, Codable {
    /// The header name as received (case preserved).
    public var name: String
    /// The header value as received.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether this field's name equals `name`, ignoring ASCII case.
    public func hasName(_ name: String) -> Bool {
        self.name.utf8.elementsEqual(name.utf8) { asciiLowercased($0) == asciiLowercased($1) }
    }
}

/// Lower-cases an ASCII letter byte, leaving every other byte alone.
@inline(__always)
public func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte + 32 : byte
}

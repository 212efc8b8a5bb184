/// A JSON number as written in the document, e.g. `3`, `-0.5`, `1e3`.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number's text, which the parser has checked against RFC 8259's grammar.
    public let text: String

    /// A number with this text; `text` must follow RFC 8259's number grammar.
    public init(text: String) {
        self.text = text
    }

    /// The nearest `Double` (infinite when the number is too large for one).
    public var value: Double {
        // Every RFC 8259 number is a valid Swift floating-point literal; NaN is only for other text.
        Double(self.text) ?? .nan
    }

    /// The number as an `Int64` when it is a whole number in range, whichever way it is written
    /// (`3600`, `3600.0` and `3.6e3` all give 3600), else nil.
    public var integerValue: Int64? {
        if let exact = Int64(self.text) {
            return exact
        }
        // Past 2^53 a Double no longer holds every whole number; such a number written with a
        // fraction or an exponent is not taken as exact.
        let value = self.value
        guard value.rounded() == value, value.magnitude <= 9_007_199_254_740_992 else {
            return nil
        }
        return Int64(value)
    }

    /// The number's text.
    public var description: String {
        self.text
    }
}

extension StringProtocol {
    /// The text without surrounding spaces and tabs (HTTP's optional whitespace, RFC 9110
    /// section 5.6.3).
    public func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }

    /// The text without surrounding Unicode whitespace (newlines included) or byte-order marks.
    public func trimmingUnicodeWhitespace() -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII {
                // Unicode's White_Space among ASCII: tab, line feed, vertical tab, form feed, carriage return, space.
                return scalar == " " || (0x09...0x0D).contains(scalar.value)
            }
            return scalar.properties.isWhitespace || scalar == "\u{FEFF}"
        }
        let scalars = self.unicodeScalars
        if let first = scalars.first, let last = scalars.last, !isSpace(first), !isSpace(last) {
            // Nothing to trim, the usual case: no copy made scalar by scalar.
            return String(self)
        }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else {
            return ""
        }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }
}

extension StringProtocol {
    /// The text without surrounding Unicode whitespace (newlines included) or byte-order marks.
    func trimmingWhitespace() -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isWhitespace || scalar == "\u{FEFF}"
        }
        let scalars = self.unicodeScalars
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

extension JSONValue {
    /// The value at a dotted path such as `variables.gameplayID` (a segment of digits indexes an
    /// array: `items.0.id`), or nil when any step is missing.
    public func value(atPath path: String) -> JSONValue? {
        var value = self
        for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch value.kind {
            case .object:
                guard let member = value[member: String(segment)] else { return nil }
                value = member
            case .array(let elements):
                guard let index = Int(segment), elements.indices.contains(index) else { return nil }
                value = elements[index]
            default:
                return nil
            }
        }
        return value
    }

    /// A string's text, a number's (a whole number in its plain form, so `7`, `7.0` and `"7"` read
    /// alike), or `true`/`false`; nil for null, arrays and objects, which name no single thing.
    public var scalarText: String? {
        switch self.kind {
        case .string(let string): return string
        case .number(let number): return number.integerValue.map(String.init) ?? number.text
        case .bool(let flag): return flag ? "true" : "false"
        case .null, .array, .object: return nil
        }
    }
}

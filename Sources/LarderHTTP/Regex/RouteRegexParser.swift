/// Parses the regular expression syntax routes support (docs/FORMATS.md, "Route regular
/// expressions") into a ``RouteRegexNode``, refusing with a ``RouteRegexError`` what needs
/// backtracking (backreferences, lookaround, atomic groups, possessive quantifiers) or is not
/// supported, so that an expression is never silently read otherwise than Swift's `Regex` would.
struct RouteRegexParser {
    /// The longest expression accepted, in characters.
    static let maximumLength = 1_000
    /// The largest repetition count accepted in `{m,n}`.
    static let maximumCount = 1_000

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var caseInsensitive = false
    /// How many capture groups were opened so far.
    private(set) var captureCount = 0

    private init(_ source: String) {
        self.scalars = Array(source.unicodeScalars)
    }

    /// The parsed expression and its number of capture groups.
    static func parse(_ source: String) throws(RouteRegexError) -> (node: RouteRegexNode, captureCount: Int) {
        var parser = RouteRegexParser(source)
        guard parser.scalars.count <= Self.maximumLength else {
            throw RouteRegexError("longer than \(Self.maximumLength) characters")
        }
        let node = try parser.alternation()
        if parser.position < parser.scalars.count {
            // Only an unmatched `)` stops the top level early.
            throw RouteRegexError("unbalanced parenthesis: ) closes no group", offset: parser.position)
        }
        return (node, parser.captureCount)
    }

    private var current: Unicode.Scalar? {
        self.position < self.scalars.count ? self.scalars[self.position] : nil
    }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        let index = self.position + offset
        return index < self.scalars.count ? self.scalars[index] : nil
    }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard self.current == scalar else { return false }
        self.position += 1
        return true
    }

    // MARK: - Structure

    private mutating func alternation() throws(RouteRegexError) -> RouteRegexNode {
        var alternatives = [try self.concatenation()]
        while self.take("|") {
            alternatives.append(try self.concatenation())
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func concatenation() throws(RouteRegexError) -> RouteRegexNode {
        var parts: [RouteRegexNode] = []
        while let scalar = self.current, scalar != "|", scalar != ")" {
            guard let atom = try self.atom() else { continue }
            parts.append(try self.quantified(atom))
        }
        switch parts.count {
        case 0: return .empty
        case 1: return parts[0]
        default: return .concatenation(parts)
        }
    }

    /// The next atom, or nil for an inline option such as `(?i)`, which matches nothing.
    private mutating func atom() throws(RouteRegexError) -> RouteRegexNode? {
        let start = self.position
        let scalar = self.scalars[self.position]
        self.position += 1
        switch scalar {
        case "(": return try self.group(at: start)
        case "[": return .scalars(try self.characterClass(at: start))
        case ".": return .scalars(.anyButNewline)
        case "^": return .assertion(.start)
        case "$": return .assertion(.end)
        case "\\": return try self.escape(at: start)
        case "*", "+", "?":
            throw RouteRegexError("\(scalar) has nothing before it to repeat", offset: start)
        case "{" where self.countedRepetition(at: start) != nil:
            throw RouteRegexError("{ has nothing before it to repeat", offset: start)
        default: return self.literal(scalar)
        }
    }

    private func literal(_ scalar: Unicode.Scalar) -> RouteRegexNode {
        let set = ScalarSet(scalar)
        return .scalars(self.caseInsensitive ? set.addingASCIICases : set)
    }

    // MARK: - Quantifiers

    private mutating func quantified(_ atom: RouteRegexNode) throws(RouteRegexError) -> RouteRegexNode {
        let quantifierStart = self.position
        let bounds: (minimum: Int, maximum: Int?)
        switch self.current {
        case "*":
            self.position += 1
            bounds = (0, nil)
        case "+":
            self.position += 1
            bounds = (1, nil)
        case "?":
            self.position += 1
            bounds = (0, 1)
        case "{":
            guard let counted = self.countedRepetition() else { return atom }
            self.position = counted.end
            guard counted.minimum <= Self.maximumCount, (counted.maximum ?? 0) <= Self.maximumCount else {
                throw RouteRegexError("a repetition count over \(Self.maximumCount)", offset: quantifierStart)
            }
            if let maximum = counted.maximum, maximum < counted.minimum {
                throw RouteRegexError("a repetition {m,n} with n smaller than m", offset: quantifierStart)
            }
            bounds = (counted.minimum, counted.maximum)
        default:
            return atom
        }
        if case .assertion = atom {
            throw RouteRegexError("an anchor cannot be repeated", offset: quantifierStart)
        }
        let lazy = self.take("?")
        if self.current == "+" {
            throw RouteRegexError("possessive quantifiers (*+, ++, ?+, {n}+) are not supported", offset: self.position)
        }
        if let next = self.current, next == "*" || next == "+" || next == "?" || (next == "{" && self.countedRepetition() != nil) {
            throw RouteRegexError("a quantifier follows another quantifier; group the first one", offset: self.position)
        }
        return .repetition(atom, minimum: bounds.minimum, maximum: bounds.maximum, lazy: lazy)
    }

    /// `{m}`, `{m,}`, `{m,n}` or `{,n}` at the `{` at `brace` (by default the current one), or nil
    /// when what follows the brace is not one (then the brace is a literal, as in Swift's `Regex`).
    private func countedRepetition(at brace: Int? = nil) -> (minimum: Int, maximum: Int?, end: Int)? {
        var index = (brace ?? self.position) + 1
        func number() -> Int? {
            var value: Int?
            while index < self.scalars.count, let digit = Self.digitValue(self.scalars[index]) {
                value = min((value ?? 0) * 10 + digit, Int(Int32.max))
                index += 1
            }
            return value
        }
        let minimum = number()
        if index < self.scalars.count, self.scalars[index] == "}" {
            guard let minimum else { return nil }
            return (minimum, minimum, index + 1)
        }
        guard index < self.scalars.count, self.scalars[index] == "," else { return nil }
        index += 1
        let maximum = number()
        guard index < self.scalars.count, self.scalars[index] == "}", minimum != nil || maximum != nil else { return nil }
        return (minimum ?? 0, maximum, index + 1)
    }

    private static func digitValue(_ scalar: Unicode.Scalar) -> Int? {
        ("0"..."9").contains(scalar) ? Int(scalar.value - 0x30) : nil
    }

    // MARK: - Groups

    private mutating func group(at start: Int) throws(RouteRegexError) -> RouteRegexNode? {
        let savedCaseInsensitive = self.caseInsensitive
        var captureIndex: Int?
        if self.take("?") {
            switch self.current {
            case ":":
                self.position += 1
            case "<" where self.peek(1) == "=" || self.peek(1) == "!":
                throw RouteRegexError("lookbehind (?<=…) and (?<!…) is not supported", offset: start)
            case "=", "!":
                throw RouteRegexError("lookahead (?=…) and (?!…) is not supported", offset: start)
            case ">":
                throw RouteRegexError("atomic groups (?>…) are not supported", offset: start)
            case "<", "'":
                try self.groupName(closing: self.current == "<" ? ">" : "'", at: start)
                captureIndex = self.nextCapture()
            case "P" where self.peek(1) == "<":
                self.position += 1
                try self.groupName(closing: ">", at: start)
                captureIndex = self.nextCapture()
            case "P" where self.peek(1) == "=":
                throw RouteRegexError("backreferences (?P=name) are not supported", offset: start)
            case "i", "-":
                // Inline options: (?i) for the rest of the group, (?i:…) for a group.
                let enable = !self.take("-")
                guard self.take("i") else { throw self.unsupportedOption(at: start) }
                if self.take(")") {
                    self.caseInsensitive = enable
                    return nil
                }
                guard self.take(":") else { throw self.unsupportedOption(at: start) }
                self.caseInsensitive = enable
            case let other?:
                if ("a"..."z").contains(other) || ("A"..."Z").contains(other) || other == "^" {
                    throw self.unsupportedOption(at: start)
                }
                throw RouteRegexError("the group syntax (?\(other) is not supported", offset: start)
            case nil:
                throw RouteRegexError("unbalanced parenthesis: ( is not closed", offset: start)
            }
        } else {
            captureIndex = self.nextCapture()
        }
        let body = try self.alternation()
        guard self.take(")") else {
            throw RouteRegexError("unbalanced parenthesis: ( is not closed", offset: start)
        }
        self.caseInsensitive = savedCaseInsensitive
        return captureIndex.map { .capture(body, index: $0) } ?? body
    }

    private mutating func nextCapture() -> Int {
        self.captureCount += 1
        return self.captureCount
    }

    private func unsupportedOption(at start: Int) -> RouteRegexError {
        RouteRegexError("inline options other than (?i) are not supported", offset: start)
    }

    /// Skips a group name (letters, digits, `_`) and its closing `>` or `'`.
    private mutating func groupName(closing: Unicode.Scalar, at start: Int) throws(RouteRegexError) {
        self.position += 1
        let nameStart = self.position
        while let scalar = self.current, scalar == "_" || scalar.properties.isAlphabetic || Self.digitValue(scalar) != nil {
            self.position += 1
        }
        guard self.position > nameStart, self.take(closing) else {
            throw RouteRegexError("a group name must be letters, digits and _, closed by \(closing)", offset: start)
        }
    }

    // MARK: - Escapes

    private mutating func escape(at start: Int) throws(RouteRegexError) -> RouteRegexNode {
        guard let scalar = self.current else {
            throw RouteRegexError("\\ at the end of the expression escapes nothing", offset: start)
        }
        self.position += 1
        switch scalar {
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.start)
        case "z": return .assertion(.end)
        case "1"..."9", "k", "g":
            throw RouteRegexError("backreferences (\\\(scalar)) are not supported", offset: start)
        default:
            if let set = try self.classEscape(scalar, at: start) {
                return .scalars(set)
            }
            return self.literal(try self.scalarEscape(scalar, at: start))
        }
    }

    /// `\d \D \w \W \s \S`, or nil for another escape.
    private func classEscape(_ scalar: Unicode.Scalar, at start: Int) throws(RouteRegexError) -> ScalarSet? {
        switch scalar {
        case "d": return .digits
        case "D": return ScalarSet.digits.inverted
        case "w": return .wordCharacters
        case "W": return ScalarSet.wordCharacters.inverted
        case "s": return .whitespace
        case "S": return ScalarSet.whitespace.inverted
        case "p", "P": throw RouteRegexError("Unicode properties (\\\(scalar){…}) are not supported", offset: start)
        default: return nil
        }
    }

    /// The scalar an escape other than a class stands for: a control character, a hex code
    /// (`\xHH`, `\x{H…}`, `\uHHHH`, `\u{H…}`) or an escaped punctuation character.
    private mutating func scalarEscape(_ scalar: Unicode.Scalar, at start: Int) throws(RouteRegexError) -> Unicode.Scalar {
        switch scalar {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "0": return "\u{00}"
        case "x": return try self.hexScalar(digits: 2, at: start)
        case "u": return try self.hexScalar(digits: 4, at: start)
        default:
            if scalar.properties.isAlphabetic || Self.digitValue(scalar) != nil {
                throw RouteRegexError("the escape \\\(scalar) is not supported", offset: start)
            }
            return scalar
        }
    }

    /// `digits` hex digits, or any number of them in braces.
    private mutating func hexScalar(digits: Int, at start: Int) throws(RouteRegexError) -> Unicode.Scalar {
        let braced = self.take("{")
        var value: UInt32 = 0
        var count = 0
        while let scalar = self.current, let digit = Self.digitValue(scalar) ?? Self.hexLetter(scalar), count < (braced ? 8 : digits) {
            value = value * 16 + UInt32(digit)
            count += 1
            self.position += 1
        }
        guard count > 0, braced ? self.take("}") : count == digits, let result = Unicode.Scalar(value) else {
            throw RouteRegexError("a malformed hex escape", offset: start)
        }
        return result
    }

    private static func hexLetter(_ scalar: Unicode.Scalar) -> Int? {
        switch scalar {
        case "a"..."f": Int(scalar.value - 0x61 + 10)
        case "A"..."F": Int(scalar.value - 0x41 + 10)
        default: nil
        }
    }

    // MARK: - Character classes

    private mutating func characterClass(at start: Int) throws(RouteRegexError) -> ScalarSet {
        let negated = self.take("^")
        var ranges: [ClosedRange<UInt32>] = []
        var isFirst = true
        while true {
            guard let scalar = self.current else {
                throw RouteRegexError("unbalanced bracket: [ is not closed", offset: start)
            }
            if scalar == "]", !isFirst {
                self.position += 1
                break
            }
            isFirst = false
            let itemStart = self.position
            if scalar == "[" {
                throw RouteRegexError(
                    self.peek(1) == ":" ? "POSIX classes ([:alpha:]) are not supported" : "nested classes are not supported; write \\[",
                    offset: itemStart)
            }
            if let next = self.peek(1), next == scalar, scalar == "&" || scalar == "~" || (scalar == "-" && self.peek(2) != "]") {
                throw RouteRegexError("class set operations (&&, --, ~~) are not supported", offset: itemStart)
            }
            let item = try self.classItem()
            guard case .single(let lower) = item, self.current == "-", let after = self.peek(1), after != "]" else {
                ranges += item.set.ranges
                continue
            }
            self.position += 1
            guard case .single(let upper) = try self.classItem() else {
                throw RouteRegexError("a range's ends must be single characters", offset: itemStart)
            }
            guard lower.value <= upper.value else {
                throw RouteRegexError("the range \(lower)-\(upper) is out of order", offset: itemStart)
            }
            ranges.append(lower.value...upper.value)
        }
        var set = ScalarSet(ranges)
        if self.caseInsensitive {
            set = set.addingASCIICases
        }
        return negated ? set.inverted : set
    }

    private enum ClassItem {
        case single(Unicode.Scalar)
        case set(ScalarSet)

        var set: ScalarSet {
            switch self {
            case .single(let scalar): ScalarSet(scalar)
            case .set(let set): set
            }
        }
    }

    private mutating func classItem() throws(RouteRegexError) -> ClassItem {
        let start = self.position
        let scalar = self.scalars[self.position]
        self.position += 1
        guard scalar == "\\" else { return .single(scalar) }
        guard let escaped = self.current else {
            throw RouteRegexError("unbalanced bracket: [ is not closed", offset: start)
        }
        self.position += 1
        if let set = try self.classEscape(escaped, at: start) {
            return .set(set)
        }
        if escaped == "b" || ("1"..."9").contains(escaped) {
            throw RouteRegexError("the escape \\\(escaped) is not supported in a class", offset: start)
        }
        return .single(try self.scalarEscape(escaped, at: start))
    }
}

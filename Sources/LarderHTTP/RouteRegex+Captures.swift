extension RouteRegex {
    /// The groups of the first match in `subject`, index 0 being the whole match (nil for a group
    /// that took no part in it); nil when the expression does not match.
    public func captures(in subject: String) -> [String?]? {
        guard let match = subject.firstMatch(of: self.regex) else { return nil }
        return match.output.map { $0.substring.map(String.init) }
    }
}

extension CacheRoute.Pattern {
    /// How many capture groups a `regex` pattern has (the whole match not counted); 0 for a glob.
    public var captureCount: Int {
        guard case .regex(let source, _) = self else { return 0 }
        // Every group is in a match's output, matched or not; the empty alternative makes the
        // empty string match whatever the expression is.
        guard let wrapped = try? Regex("(?:\(source))|"), let match = "".firstMatch(of: wrapped) else { return 0 }
        return match.output.count - 1
    }

    /// Whether the pattern covers `key`, as ``CacheRoute/matches(_:)`` decides.
    public func matches(_ key: CacheKey) -> Bool {
        switch self {
        case .glob(let glob): return glob.matches(key)
        case .regex(_, let expression): return expression.matches(key.rawValue)
        }
    }
}

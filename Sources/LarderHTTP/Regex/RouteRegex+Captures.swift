extension RouteRegex {
    /// The groups of the first match in `subject`, index 0 being the whole match (nil for a group
    /// that took no part in it); nil when the expression does not match.
    public func captures(in subject: String) -> [String?]? {
        let scalars = Array(subject.unicodeScalars)
        guard let slots = self.program.run(scalars, captures: true).slots else { return nil }
        return stride(from: 0, to: slots.count, by: 2).map { slot in
            guard slots[slot] >= 0, slots[slot + 1] >= 0 else { return nil }
            return String(String.UnicodeScalarView(scalars[slots[slot]..<slots[slot + 1]]))
        }
    }
}

extension CacheRoute.Pattern {
    /// How many capture groups a `regex` pattern has (the whole match not counted); 0 for a glob.
    public var captureCount: Int {
        guard case .regex(_, let expression) = self else { return 0 }
        return expression.captureCount
    }

    /// Whether the pattern covers `key`, as ``CacheRoute/matches(_:)`` decides.
    public func matches(_ key: CacheKey) -> Bool {
        switch self {
        case .glob(let glob): return glob.matches(key)
        case .regex(_, let expression): return expression.matches(key.rawValue)
        }
    }
}

/// A parsed route regular expression (``RouteRegexParser``), before it is compiled to a
/// ``RouteRegexProgram``.
indirect enum RouteRegexNode: Sendable, Hashable {
    /// Matches the empty string.
    case empty
    /// One scalar from the set.
    case scalars(ScalarSet)
    /// The parts one after another.
    case concatenation([RouteRegexNode])
    /// The first alternative that leads to a match, in order.
    case alternation([RouteRegexNode])
    /// The node, its match kept as capture group `index` (1-based).
    case capture(RouteRegexNode, index: Int)
    /// The node `minimum` to `maximum` times (nil: no upper bound), as many as possible unless lazy.
    case repetition(RouteRegexNode, minimum: Int, maximum: Int?, lazy: Bool)
    /// A condition on the position, matching no characters.
    case assertion(RouteRegexAssertion)
}

/// A zero-width condition in a route regular expression.
enum RouteRegexAssertion: Sendable, Hashable {
    /// `^`, `\A`: the start of the subject.
    case start
    /// `$`, `\z`: the end of the subject.
    case end
    /// `\b`: between a word character and a non-word one (or an end).
    case wordBoundary
    /// `\B`: anywhere `\b` is not.
    case notWordBoundary
}

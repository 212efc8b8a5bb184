/// A compiled regular expression for a route, safe to share between connections.
///
/// Matched by Larder's own engine (``RouteRegexProgram``), which never backtracks: a match takes
/// time linear in the subject's length, whatever the expression (`(a+)+$` included), so a URL
/// cannot stall the event loop that matches it. The syntax is the part of Swift's `Regex` that
/// routes use (docs/FORMATS.md, "Route regular expressions"); the rest is refused when compiled.
public struct RouteRegex: Sendable {
    let program: RouteRegexProgram

    /// Compiles `source`; throws when it is not a valid regular expression, uses syntax the
    /// engine does not support, or is over its size limits.
    public init(_ source: String) throws(RouteRegexError) {
        let parsed = try RouteRegexParser.parse(source)
        self.program = try RouteRegexProgram(parsed.node, captureCount: parsed.captureCount)
    }

    /// How many capture groups the expression has (the whole match not counted).
    public var captureCount: Int {
        self.program.captureCount
    }

    /// Whether the expression matches anywhere in `subject`.
    public func matches(_ subject: String) -> Bool {
        self.program.run(Array(subject.unicodeScalars), captures: false).slots != nil
    }
}

/// Why a route's regular expression was refused: invalid, unsupported by Larder's engine (which
/// never backtracks, docs/FORMATS.md "Route regular expressions"), or over its size limits.
public struct RouteRegexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. `backreferences (\1) are not supported`.
    public var message: String
    /// The 0-based character offset in the expression where the problem is (nil: the whole).
    public var offset: Int?

    /// Creates an error.
    public init(_ message: String, offset: Int? = nil) {
        self.message = message
        self.offset = offset
    }

    /// The message, and the 1-based character it is at.
    public var description: String {
        guard let offset = self.offset else { return self.message }
        return "\(self.message) (at character \(offset + 1))"
    }
}

/// A line of a games list that was not used, and why.
public struct GamesListProblem: Sendable, Hashable, CustomStringConvertible {
    /// The name of the list as given to the parser, e.g. `games.txt` or `request`.
    public var source: String
    /// The 1-based line number (or position in a list of URLs).
    public var line: Int
    /// What is wrong with the line, e.g. `invalid URL "ftp://x": unsupported scheme "ftp"; ...`.
    public var reason: String

    /// Creates a problem report for one line.
    public init(source: String, line: Int, reason: String) {
        self.source = source
        self.line = line
        self.reason = reason
    }

    /// `SOURCE:LINE: reason`, e.g. `games.txt:3: invalid URL "ftp://x": ...`.
    public var description: String {
        "\(self.source):\(self.line): \(self.reason)"
    }
}

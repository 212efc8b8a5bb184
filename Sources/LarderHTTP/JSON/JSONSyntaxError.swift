/// Why a document is not valid JSON, and where.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 0-based byte offset of the problem.
    public var offset: Int
    /// The 1-based line of the problem.
    public var line: Int
    /// The 1-based column of the problem, in bytes.
    public var column: Int
    /// What was wrong, e.g. `expected "," or "]" after an array element`.
    public var message: String

    /// `line 3, column 7 (byte offset 42): expected ...`.
    public var description: String {
        "line \(self.line), column \(self.column) (byte offset \(self.offset)): \(self.message)"
    }
}

/// Why a string could not be parsed as an absolute http(s) URL.
public struct URLParseError: Error, CustomStringConvertible, Equatable {
    /// The rejected input, shortened to ``maximumQuotedLength`` characters.
    public let input: String
    /// What is wrong with it, e.g. `unsupported scheme "ftp"; only http and https URLs are accepted`.
    public let reason: String

    /// How many characters of the input an error keeps, so a huge URL does not flood a log.
    public static let maximumQuotedLength = 200

    /// Creates an error for `input` (shortened as needed) and a reason.
    public init(input: String, reason: String) {
        if input.count > Self.maximumQuotedLength {
            self.input = String(input.prefix(Self.maximumQuotedLength)) + "…"
        } else {
            self.input = input
        }
        self.reason = reason
    }

    /// `invalid URL "<input>": <reason>`, with control characters in the input escaped.
    public var description: String {
        "invalid URL \(self.input.debugDescription): \(self.reason)"
    }
}

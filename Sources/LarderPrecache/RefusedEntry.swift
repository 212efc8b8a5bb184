/// A manifest entry that is not precached, and why.
public struct RefusedEntry: Sendable, Hashable, CustomStringConvertible {
    /// The resolved URL, or the entry as written when it does not resolve to a URL.
    public var url: String
    /// Why it is refused, e.g. `it is on https://other.example, another origin than the manifest`.
    public var reason: String

    /// Creates a refused entry.
    public init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }

    /// `URL: reason`.
    public var description: String {
        "\(self.url): \(self.reason)"
    }
}

import struct Foundation.Date

/// The app's own body of a declared request, as learned from its request (docs/SERVING.md,
/// "Following the app's query").
public struct LearnedBodyRecord: Sendable, Hashable {
    /// The body as a template, JSON text.
    public var body: String
    /// When the app's request with it was answered 2xx.
    public var learnedAt: Date
    /// The page that sent it (its `Referer`), or a word for none.
    public var source: String

    /// A learned body.
    public init(body: String, learnedAt: Date, source: String) {
        self.body = body
        self.learnedAt = learnedAt
        self.source = source
    }
}

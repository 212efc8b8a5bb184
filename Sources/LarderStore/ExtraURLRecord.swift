import struct Foundation.Date

/// A URL added to precache from /dev/offline (see ``Store/addExtraURL(_:)``): precached as a page
/// with its game on every run, or, without a game, with every run.
public struct ExtraURLRecord: Sendable, Hashable {
    /// The absolute URL.
    public var url: String
    /// The slug of the game it goes with, or nil.
    public var gameSlug: String?
    /// When it was added.
    public var addedAt: Date

    /// Creates a record.
    public init(url: String, gameSlug: String?, addedAt: Date) {
        self.url = url
        self.gameSlug = gameSlug
        self.addedAt = addedAt
    }
}

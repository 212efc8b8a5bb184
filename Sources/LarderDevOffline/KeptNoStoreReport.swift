import Foundation
import LarderHTTP

/// The sites whose `no-store` pages are kept for offline use, and those seen sending `no-store`
/// that the user may choose (docs/SERVING.md, "Pages marked no-store, kept on request"), as
/// /dev/offline and its JSON show them.
public struct KeptNoStoreReport: Sendable, Codable {
    /// A site seen sending `no-store` to the app.
    public struct Candidate: Sendable, Codable {
        /// The origin, e.g. `https://admin.example`.
        public var origin: String
        /// How many of the app's GETs to it got an answer not stored for `no-store` (since the
        /// proxy started, while the site was among the most recent few hundred).
        public var count: Int
        /// The latest such URL.
        public var latestURL: String
        /// When the latest was seen.
        public var lastSeen: Date
    }

    /// The file the chosen sites are kept in.
    public var file: String
    /// The chosen sites, the first chosen first.
    public var kept: [String]
    /// When each chosen site was chosen, where known.
    public var chosenAt: [String: Date]? = nil
    /// The sites seen sending `no-store` that are not chosen, the most recent first.
    public var candidates: [Candidate]
    /// Why the file could not be read (nil when it was, or there is none).
    public var problem: String?
}

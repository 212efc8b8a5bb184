import Foundation

/// A fix the user applied from /dev/offline to an endpoint the cache could not answer, and
/// whether the endpoint missed since: what the note of its row says (docs/SERVING.md,
/// "Offline misses").
public struct OfflineMissFix: Sendable, Codable, Hashable {
    /// What the user did.
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        /// **Answer offline**: the URL's requests of the method are kept by their bodies.
        case answerOffline = "answer-offline"
        /// **Add to precache**: the URL is fetched with every precache run.
        case addToPrecache = "add-to-precache"
        /// **Keep this site's pages for offline use**: the site's `no-store` pages are kept.
        case keepNoStore = "keep-no-store"
    }

    /// What the user did.
    public var kind: Kind
    /// When (nil: before Larder kept the time).
    public var at: Date?
    /// Whether the endpoint missed after `at` (after the fix, or, without a time, at all).
    public var missedSince: Bool

    /// A fix of `kind` at `at`, and whether it missed since.
    public init(kind: Kind, at: Date?, missedSince: Bool) {
        self.kind = kind
        self.at = at
        self.missedSince = missedSince
    }
}

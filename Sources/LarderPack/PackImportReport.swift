/// What ``PackImporter`` did, or would do in a dry run.
public struct PackImportReport: Sendable, Equatable {
    /// What became of one game of the pack.
    public enum Outcome: Sendable, Equatable {
        /// The pack's version was installed (or would be, in a dry run), in this state (`ready`,
        /// `partial`, `failed`, `skipped`).
        case installed(state: String)
        /// The cache holds this very version already.
        case upToDate
        /// The cache holds a newer version (``NewerCopy``); it stays.
        case keptNewer
        /// The pack's version could not be installed, for this reason; the cache's stays as it was.
        case notInstalled(String)
    }

    /// One game.
    public struct Game: Sendable, Equatable {
        /// Its slug in this cache.
        public var slug: String
        /// Its display name, when known.
        public var displayName: String?
        /// What became of it.
        public var outcome: Outcome
    }

    /// The games, in the pack's order.
    public var games: [Game] = []
    /// Pages installed, and pages whose copy here is as new or newer.
    public var pagesInstalled = 0
    /// Pages this cache holds as new or newer.
    public var pagesKept = 0
    /// Entries written to the cache (or, in a dry run, that would be).
    public var entriesInstalled = 0
    /// Entries whose copy here is as new or newer, left as they are.
    public var entriesKept = 0
    /// Body bytes written (or that would be).
    public var bytesInstalled: Int64 = 0
    /// Bodies whose bytes do not match their hash, each `URL: reason`.
    public var damaged: [String] = []
    /// What the exporting cache did not have (from the pack's manifest).
    public var missing: [PackMissing] = []

    /// Whether everything in the pack was installed or already here, and nothing was damaged.
    public var succeeded: Bool {
        self.damaged.isEmpty && !self.games.contains { if case .notInstalled = $0.outcome { true } else { false } }
    }
}

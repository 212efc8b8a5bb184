import Foundation
import LarderStore

/// The outcome of one precache run: what the summary, `--json` and the web job report.
public struct PrecacheReport: Sendable, Hashable, Codable {
    /// One game's outcome.
    public struct Game: Sendable, Hashable, Codable {
        /// Readiness of a game.
        public enum State: String, Sendable, Hashable, Codable {
            /// Every listed file is cached.
            case ready
            /// Some listed files are cached.
            case partial
            /// The manifest failed, or no file could be cached.
            case failed
            /// The manifest says `"skip": true`.
            case skipped

            /// The state a game record gives.
            init(_ state: GameState) {
                switch state {
                case .ready: self = .ready
                case .partial: self = .partial
                case .failed: self = .failed
                case .skipped: self = .skipped
                }
            }
        }

        /// The game's slug (its folder name).
        public var slug: String
        /// Its display name from metadata.json, when there is one.
        public var displayName: String?
        /// The game root URL.
        public var root: String
        /// Readiness.
        public var state: State
        /// Files the manifest lists (excluded ones left out).
        public var filesListed: Int
        /// Of those, files now cached.
        public var filesCached: Int
        /// Bytes of the cached files.
        public var bytes: Int64
        /// Why the game failed, or was not updated, when it was not.
        public var error: String?
        /// Every file that could not be cached, with the reason.
        public var failures: [Failure]
        /// Whether the game's new version could not be completed and its previous, complete version
        /// stays ready (and served): the state, counts and bytes are that version's, `error` and
        /// `failures` say what kept the new one from being complete.
        public var previousVersionKept: Bool
    }

    /// A URL that could not be cached.
    public struct Failure: Sendable, Hashable, Codable {
        /// The URL.
        public var url: String
        /// Why.
        public var reason: String
    }

    /// Games in games.txt order.
    public var games: [Game]
    /// Dated series in games.txt order.
    public var series: [Series] = []
    /// Pages that could not be cached.
    public var pageFailures: [Failure]
    /// Pages listed on their own (`page URL` and `.html` lines; games' pages count with their games).
    public var pagesListed: Int
    /// Bad lines of the games list, as `FILE:LINE: reason`.
    public var listProblems: [String]
    /// Files that were already cached and not fetched again.
    public var alreadyCached: Int
    /// Files downloaded in this run (pages included).
    public var downloaded: Int
    /// Bytes downloaded in this run.
    public var downloadedBytes: Int64
    /// Files that failed.
    public var failed: Int
    /// Files left out by `--exclude`.
    public var excluded: Int
    /// Cached files removed because no manifest lists them any more.
    public var removed: Int
    /// How long the run took, in seconds.
    public var seconds: Double

    /// Whether everything listed is ready in the version listed now (skipped games count as done).
    public var succeeded: Bool {
        self.listProblems.isEmpty && self.pageFailures.isEmpty && self.failed == 0
            && self.games.allSatisfy { ($0.state == .ready && !$0.previousVersionKept) || $0.state == .skipped }
            && self.series.allSatisfy { $0.error == nil && $0.missing.isEmpty }
    }
}

/// What a running precache reports as it goes.
public enum PrecacheProgress: Sendable {
    /// Manifests are being fetched.
    case fetchingManifests(count: Int)
    /// The plan is made: this many files to download, this many already cached.
    case planned(toFetch: Int, alreadyCached: Int)
    /// A download finished (`error` nil on success).
    case fileFinished(url: String, game: String?, bytes: Int64, error: String?)
    /// The run is over.
    case finished(PrecacheReport)
}

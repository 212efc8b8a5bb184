import LarderStore

extension PrecacheReport {
    /// One dated series' outcome.
    public struct Series: Sendable, Hashable, Codable {
        /// One day that could not be cached.
        public struct MissingDay: Sendable, Hashable, Codable {
            /// The day, `YYYY-MM-DD`.
            public var date: String
            /// Its URL.
            public var url: String
            /// Why, e.g. `answered HTTP 404`.
            public var reason: String
        }

        /// The manifest URL or the URL template.
        public var location: String
        /// `manifest` or `template`.
        public var kind: String
        /// The zone whose calendar says which day is today.
        public var timeZone: String
        /// Today in that zone, `YYYY-MM-DD`.
        public var today: String
        /// Whether today's file is cached (false too when the manifest does not list today).
        public var todayReady: Bool
        /// Days in range (today, past and future ones), and how many are cached.
        public var daysListed: Int
        /// Of ``daysListed``, the cached ones.
        public var daysCached: Int
        /// Days before today in range.
        public var pastDays: Int
        /// Of ``pastDays``, the cached ones.
        public var pastCached: Int
        /// The newest cached day, `YYYY-MM-DD`, or nil.
        public var newestCached: String?
        /// Days the origin did not have (a template's 404) or that failed, newest first as fetched.
        public var missing: [MissingDay]
        /// Why the series' manifest could not be used, or nil.
        public var error: String?
    }
}

import Foundation

/// The sites whose answers to the app's GETs Larder did not store because they said `no-store`
/// (`Cache-Status` `detail=not-stored-no-store`), which /dev/offline offers to keep for offline
/// use (``KeptNoStore``). Kept bounded: past ``capacity`` the site seen longest ago is forgotten,
/// so a page that names many hosts costs no more than a few hundred origins.
public struct NoStoreSightings: Sendable {
    /// What was seen of one site.
    public struct Site: Sendable, Hashable, Codable {
        /// The origin, e.g. `https://admin.example`.
        public var origin: String
        /// How many answers were not stored for `no-store`.
        public var count: Int
        /// The latest such URL.
        public var latestURL: String
        /// When the latest was seen.
        public var lastSeen: Date
    }

    private var sites: LeastRecentlyUsedCache<String, Site>

    /// An empty record of at most `capacity` sites.
    public init(capacity: Int = 256) {
        self.sites = LeastRecentlyUsedCache(capacity: capacity)
    }

    /// How many sites are kept at most.
    public var capacity: Int {
        self.sites.capacity
    }

    /// Notes that an answer for `url` (of `origin`) was not stored for `no-store` at `now`.
    public mutating func record(origin: String, url: String, at now: Date) {
        var site = self.sites.value(for: origin) ?? Site(origin: origin, count: 0, latestURL: url, lastSeen: now)
        site.count += 1
        site.latestURL = url
        site.lastSeen = now
        self.sites.insert(site, for: origin)
    }

    /// The sites, the one seen most recently first.
    public var all: [Site] {
        self.sites.contents.values.sorted { ($0.lastSeen, $0.origin) > ($1.lastSeen, $1.origin) }
    }
}

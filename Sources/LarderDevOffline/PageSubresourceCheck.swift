import Foundation
import LarderHTTP
import LarderStore
import Synchronization

/// Which same-origin scripts and styles a stored page names (``PageSubresources``) that the store
/// does not hold, so that /dev/offline says "ready" only for a page a fresh profile can load
/// offline. Each page body is read once (its first ``PageSubresources/scannedBytes``), remembered
/// by body hash in a bounded memo; what is stored is looked up at each report. Never on a hit path.
public final class PageSubresourceCheck: Sendable {
    /// How many page bodies' named URLs are remembered.
    static let capacity = 512
    private let named = Mutex(LeastRecentlyUsedCache<String, [HTTPURL]>(capacity: PageSubresourceCheck.capacity))

    private let queryFilter: QueryParameterFilter

    /// A check with an empty memo, finding stored URLs under the keys `queryFilter` makes.
    public init(queryFilter: QueryParameterFilter = .default) {
        self.queryFilter = queryFilter
    }

    /// The URLs the stored page at `url` names that are stored neither under their key nor as a
    /// variant, in the page's order; empty when the page is not stored or is not HTML.
    public func unstored(byPageAt url: String, in store: Store) async throws -> [String] {
        guard let page = try? HTTPURL(parsing: url), let key = try? CacheKey(url: url, filter: self.queryFilter),
            let entry = try await store.variants(of: key).first, entry.isHTML
        else { return [] }
        let urls: [HTTPURL]
        if let remembered = self.named.withLock({ $0.value(for: entry.bodyHash) }) {
            urls = remembered
        } else {
            urls = PageSubresources.named(in: try Self.start(of: entry.bodyPath), page: page)
            self.named.withLock { $0.insert(urls, for: entry.bodyHash) }
        }
        var missing: [String] = []
        for named in urls where try await store.variants(of: CacheKey(url: named, filter: self.queryFilter)).isEmpty {
            missing.append(named.absoluteString)
        }
        return missing
    }

    /// The first bytes of the body at `path`, as many as the scan reads.
    private static func start(of path: String) throws -> Data {
        guard let handle = FileHandle(forReadingAtPath: path) else { return Data() }
        defer { try? handle.close() }
        return try handle.read(upToCount: PageSubresources.scannedBytes) ?? Data()
    }
}

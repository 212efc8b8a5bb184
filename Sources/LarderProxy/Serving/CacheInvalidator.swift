import LarderHTTP
import LarderStore
import LarderUpstream
import Logging

/// Removes the stored responses a successful unsafe method made invalid
/// (``UnsafeMethodInvalidation``), for the writes the proxy forwards and the queued writes
/// ``WriteReplayer`` replays alike. Precached entries stay: a manifest lists them, and only a
/// precache run changes them.
struct CacheInvalidator: Sendable {
    let store: Store
    /// Answers still being stored, which an invalidation waits for.
    let committing: CommittingAnswers
    let queryFilter: QueryParameterFilter
    let logger: Logger

    /// Removes what the answer `response` to an unsafe request for `url` made invalid.
    func invalidate(after response: UpstreamResponseHead, url: HTTPURL) async {
        guard UnsafeMethodInvalidation.invalidates(status: response.status) else { return }
        let urls = UnsafeMethodInvalidation.targets(
            of: url, location: response.headers["location"], contentLocation: response.headers["content-location"])
        for target in urls {
            let key = CacheKey(url: target, filter: self.queryFilter)
            if let commit = self.committing.flight(for: key) {
                // An answer for the key sent just before, still being stored, would outlive the invalidation.
                _ = await commit.wait(stallTimeout: .seconds(5))
            }
            do {
                try await self.store.removeEntry(for: key, keepingPrecached: true)
            } catch {
                self.logger.warning("cannot invalidate", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }
}

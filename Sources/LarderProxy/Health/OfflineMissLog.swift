import Foundation
import LarderHTTP
import NIOHTTP1

/// Where requests the cache could not answer while their origin could not are recorded, for
/// /dev/offline: the app's in one list, the browser's own in another (``AppOriginRegistry``),
/// so they neither fill nor push out the app's.
struct OfflineMissLog: Sendable {
    let appOrigins: AppOriginRegistry
    let app: OfflineMisses
    let browser: OfflineMisses
    /// The clock misses are dated by (the proxy's).
    let now: @Sendable () -> Date

    /// Records `request` when its answer (`cacheStatus`) is an offline miss; `declaredRequest`
    /// names a declared request whose answer was withheld from it.
    func record(_ request: HTTPRequestHead, url: HTTPURL, cacheStatus: CacheStatus?, declaredRequest: String? = nil) {
        let misses = self.appOrigins.initiator(of: request, url: url) == .app ? self.app : self.browser
        misses.record(request, url: url, cacheStatus: cacheStatus, declaredRequest: declaredRequest, now: self.now())
    }
}

import LarderHTTP
import NIOHTTP1
import Synchronization

/// The ``AppOrigins`` of the proxy, shared by all connections: which requests are the app's and
/// which the browser's own (docs/SERVING.md, "The browser's own requests"). Each request costs one
/// dictionary look-up under a lock.
public final class AppOriginRegistry: Sendable {
    private let origins = Mutex(AppOrigins())

    /// Who `request` (to `url`) is for; when it is the app's, its origins are kept as the app's.
    func classify(_ request: HTTPRequestHead, url: HTTPURL) -> RequestInitiator {
        let (referer, site, mode) = Self.fields(request)
        return self.origins.withLock {
            $0.classify(origin: url.origin, referer: referer, fetchSite: site, fetchMode: mode, method: request.method.wireName)
        }
    }

    /// Who `request` (to `url`) is for, learning nothing.
    func initiator(of request: HTTPRequestHead, url: HTTPURL) -> RequestInitiator {
        let (referer, site, mode) = Self.fields(request)
        return self.origins.withLock {
            $0.initiator(origin: url.origin, referer: referer, fetchSite: site, fetchMode: mode, method: request.method.wireName)
        }
    }

    /// The fields that tell who a request is for: `Referer`, `Sec-Fetch-Site`, `Sec-Fetch-Mode`.
    private static func fields(_ request: HTTPRequestHead) -> (referer: String?, site: String?, mode: String?) {
        (
            request.headers.first(name: "referer"), request.headers.first(name: "sec-fetch-site"),
            request.headers.first(name: "sec-fetch-mode")
        )
    }

    /// Whether an app's request went to `origin`.
    public func isApp(origin: String) -> Bool {
        self.origins.withLock { $0.contains(origin) }
    }
}

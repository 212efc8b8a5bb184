import LarderHTTP
import NIOHTTP1

extension ForwardProxy {
    /// Notes the site of an app's GET whose answer was not stored for its `no-store`, so that
    /// /dev/offline can offer to keep its pages (``KeptNoStoreRegistry``). The browser's own
    /// requests (``AppOriginRegistry``) are left out: the offer is for the sites the user used.
    func noteNoStore(_ relay: CacheTransaction.Relay, request: HTTPRequestHead, url: HTTPURL) {
        guard relay.notStoredReason == "no-store", request.method == .GET, let sites = self.configuration.keptNoStore,
            self.appOrigins.initiator(of: request, url: url) == .app
        else { return }
        sites.sawNoStore(url: url, at: self.configuration.now())
    }
}

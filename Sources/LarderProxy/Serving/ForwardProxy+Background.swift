import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOHTTP1

extension ForwardProxy {
    /// Revalidates or refetches a stored response without a client waiting (the
    /// `stale-while-revalidate` strategy and directive), as background work. One refresh per key
    /// runs at a time. `reach` is the asking client's (``UpstreamRequest/reach``).
    func refreshInBackground(
        key: CacheKey, url: HTTPURL, request: HTTPRequestHead, owner: AnswerOwner, reach: UpstreamReach?, entry: CachedEntry
    ) {
        guard self.backgroundRefreshes.begin(key) else { return }
        let refresh = CacheTransaction.backgroundRefresh(of: request)
        self.background.submit {
            defer { self.backgroundRefreshes.end(key) }
            let requestTime = self.configuration.now()
            do {
                let response = try await self.upstream.execute(self.upstreamRequest(refresh, url: url, validating: entry, reach: reach))
                await self.absorb(
                    response, request: refresh, owner: owner, url: url, key: key, strategy: .http, validating: entry,
                    requestTime: requestTime)
            } catch {
                self.logger.debug("background refresh failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            }
        }
    }

    /// Applies an upstream answer to the store with no client (a background refresh, or an
    /// answer slower than the strategy's timeout), as ``CacheTransaction/absorption(request:owner:url:key:strategy:keyed:validating:status:headers:requestTime:keepsNoStore:)``
    /// says.
    func absorb(
        _ response: UpstreamResponse,
        request: HTTPRequestHead,
        owner: AnswerOwner,
        url: HTTPURL,
        key: CacheKey,
        strategy: CachingStrategy,
        keyed: Bool = false,
        validating: CachedEntry?,
        requestTime: Date,
        keepsNoStore: Bool = false
    ) async {
        let headers = response.head.headers
        let target: CacheTransaction.StoreTarget
        switch CacheTransaction.absorption(
            request: request, owner: owner, url: url, key: key, strategy: strategy, keyed: keyed, validating: validating,
            status: response.head.status, headers: headers, requestTime: requestTime, keepsNoStore: keepsNoStore)
        {
        case .refresh(let entry):
            _ = await self.refresh(entry, with: response, requestTime: requestTime)
            return
        case .leave:
            return
        case .store(let storeTarget):
            target = storeTarget
        }
        let stored = HopByHopHeaders.removing(from: headers)
        guard
            let storing = StoringBody(
                store: self.store, target: target, failures: self.storeFailures, budget: self.budget,
                declaredLength: stored.contentLength, smallBodies: self.smallBodies, logger: self.logger)
        else {
            return
        }
        let responseTime = self.configuration.now()
        do {
            for try await chunk in response.body {
                storing.write(chunk)
            }
        } catch {
            storing.discard()
            self.logger.notice("background answer not stored", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            return
        }
        _ = await storing.commit(
            status: response.head.status,
            headers: stored,
            responseTime: responseTime,
            expectedLength: stored.contentLength,
            budget: self.budget,
            logger: self.logger
        )
    }
}

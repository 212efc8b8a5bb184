import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOHTTP1

extension ForwardProxy {
    /// Revalidates or refetches a stored response without a client waiting (the
    /// `stale-while-revalidate` strategy and directive), as background work. One refresh per key
    /// runs at a time.
    func refreshInBackground(key: CacheKey, url: HTTPURL, request: HTTPRequestHead, owner: AnswerOwner, entry: CachedEntry) {
        guard self.backgroundRefreshes.begin(key) else { return }
        var head = request
        head.method = .GET
        head.headers.remove(name: "range")
        let refresh = head
        self.background.submit {
            defer { self.backgroundRefreshes.end(key) }
            let requestTime = Date()
            do {
                let response = try await self.upstream.execute(self.upstreamRequest(refresh, url: url, validating: entry))
                await self.absorb(
                    response, request: refresh, owner: owner, url: url, key: key, strategy: .http, validating: entry,
                    requestTime: requestTime)
            } catch {
                if let error = error as? UpstreamError, error.isConnectFailure {
                    self.health.recordConnectFailure(origin: url.origin, description: error.description)
                }
                self.logger.debug("background refresh failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            }
        }
    }

    /// Applies an upstream answer to the store with no client (a background refresh, or an
    /// answer slower than the strategy's timeout): a 304 refreshes the validated entry, a storable
    /// answer replaces it (for a `keyed` request, any 2xx), anything else leaves it.
    func absorb(
        _ response: UpstreamResponse,
        request: HTTPRequestHead,
        owner: AnswerOwner,
        url: HTTPURL,
        key: CacheKey,
        strategy: CachingStrategy,
        keyed: Bool = false,
        validating: CachedEntry?,
        requestTime: Date
    ) async {
        self.health.recordSuccess(origin: url.origin)
        if response.head.status == 304, let entry = validating {
            _ = await self.refresh(entry, with: response, requestTime: requestTime)
            return
        }
        let headers = response.head.headers.map { HeaderField(name: $0.name, value: $0.value) }
        guard request.method == .GET || keyed, response.head.status < 500,
            let target = CacheTransaction.storeTarget(
                request: request,
                owner: owner,
                strategy: strategy,
                url: url,
                key: key,
                keyed: keyed,
                status: response.head.status,
                headers: headers,
                requestTime: requestTime
            ).storeAs,
            let storing = StoringBody(
                store: self.store, target: target, failures: self.storeFailures, budget: self.budget,
                declaredLength: HopByHopHeaders.removing(from: headers).contentLength, logger: self.logger)
        else {
            return
        }
        let responseTime = Date()
        do {
            for try await chunk in response.body {
                storing.write(chunk)
            }
        } catch {
            storing.discard()
            self.logger.notice("background answer not stored", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            return
        }
        let stored = HopByHopHeaders.removing(from: headers)
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

import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOHTTP1

extension ForwardProxy {
    /// Revalidates or refetches a stored response without a client waiting (the
    /// `stale-while-revalidate` strategy and directive). One refresh per key runs at a time.
    func refreshInBackground(key: CacheKey, url: HTTPURL, request: HTTPRequestHead, entry: CachedEntry) {
        guard self.backgroundRefreshes.begin(key) else { return }
        var head = request
        head.method = .GET
        head.headers.remove(name: "range")
        let fetch = Fetch(request: head, url: url, key: key, lookup: Lookup(entry: entry, missReason: .uriMiss), strategy: .http, reason: .stale, timeout: nil)
        Task {
            defer { self.backgroundRefreshes.end(key) }
            let requestTime = Date()
            do {
                let response = try await self.upstream.execute(self.upstreamRequest(for: fetch))
                self.health.recordSuccess(host: url.host)
                await self.absorb(response, fetch: fetch, requestTime: requestTime)
            } catch {
                if let error = error as? UpstreamError, error.isConnectFailure {
                    self.health.recordConnectFailure(host: url.host, description: error.description)
                }
                self.logger.debug("background refresh failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            }
        }
    }

    /// Stores the answer to a fetch whose client was already answered from the cache (the network
    /// was slower than the strategy's timeout).
    func absorbInBackground(_ pending: Task<UpstreamResponse, any Error>, fetch: Fetch, requestTime: Date) {
        Task {
            do {
                let response = try await pending.value
                self.health.recordSuccess(host: fetch.url.host)
                await self.absorb(response, fetch: fetch, requestTime: requestTime)
            } catch {
                self.logger.debug("late answer failed", metadata: ["url": "\(fetch.url.absoluteString)", "error": "\(error)"])
            }
        }
    }

    /// Applies an upstream answer to the store with no client: a 304 refreshes the stored entry, a
    /// storable answer replaces it, anything else leaves it.
    private func absorb(_ response: UpstreamResponse, fetch: Fetch, requestTime: Date) async {
        if response.head.status == 304, let entry = fetch.validating {
            _ = await self.refresh(entry, with: response, requestTime: requestTime)
            return
        }
        guard fetch.request.method == .GET, response.head.status < 500,
            let target = self.storeTarget(for: fetch, response: response.head, requestTime: requestTime).storeAs
        else {
            return
        }
        let responseTime = Date()
        let headers = HopByHopHeaders.removing(from: HTTPHeaders(response.head.headers))
        do {
            let writer = try self.store.makeBodyWriter()
            do {
                for try await chunk in response.body {
                    try chunk.withUnsafeReadableBytes { try writer.write($0) }
                }
            } catch {
                writer.discard()
                throw error
            }
            let head = StoredResponseHead(
                url: target.url.absoluteString,
                status: response.head.status,
                headers: headers.map { HeaderField(name: $0.name, value: $0.value) },
                requestTime: target.requestTime,
                responseTime: responseTime,
                varyRequestHeaders: target.varyValues
            )
            _ = try await writer.commit(key: target.key, head: head, kind: .runtime, expectedLength: Self.contentLength(headers))
            self.storeFailures.recordSuccess()
            self.budget.requestEviction()
        } catch let error as StoreError {
            self.storeFailures.record(error, url: fetch.url.absoluteString)
        } catch {
            self.logger.notice("background answer not stored", metadata: ["url": "\(fetch.url.absoluteString)", "error": "\(error)"])
        }
    }
}

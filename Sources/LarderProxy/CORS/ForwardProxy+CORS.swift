import Foundation
import LarderHTTP
import NIOHTTP1

/// CORS when the origin cannot answer (docs/SERVING.md): grants learned per resource from the
/// origin's answers, and given on the answers Larder makes in its place by ``CORSInOriginsPlace``.
extension ForwardProxy {
    /// The page origin of a request from a page of another origin than `url`'s; nil for any other
    /// request (a same-origin page's `Origin` needs no grant).
    static func corsPage(_ request: some HeaderFields, url: HTTPURL) -> String? {
        guard let page = CORSGrant.pageOrigin(of: request), page != url.origin else { return nil }
        return page
    }

    /// The grant pair of a request with `method` to `url` from `page` (of a preflight asking for
    /// it, with `preflight`).
    func corsPair(method: String, url: HTTPURL, page: String, preflight: Bool = false) -> CORSGrants.Pair {
        CORSGrants.Pair(method: method, key: CacheKey(url: url, filter: self.configuration.queryFilter), page: page, preflight: preflight)
    }

    /// Learns what an upstream answer to `request` says of its page origin's access to the URL:
    /// an answer granting the page is kept as the grant for that URL and method (a preflight's,
    /// for the method it asked about), new or changed grants stored in the background; an answer
    /// that no longer grants it forgets the grant, and a preflight the origin refused its stored
    /// answer too, so it stays refused offline.
    func learnCORSGrant(status: Int, from response: some HeaderFields, request: HTTPRequestHead) {
        guard request.headers.contains(name: "origin"), let url = try? HTTPURL(parsing: request.uri),
            let page = Self.corsPage(request.headers, url: url)
        else { return }
        if let preflight = CORSPreflight(method: request.method.wireName, request: request.headers) {
            let pair = self.corsPair(method: preflight.method, url: url, page: page, preflight: true)
            guard preflight.isAllowed(status: status, response: response) else {
                let key = self.configuration.preflightServing(preflight, url: url).key
                self.background.submit {
                    await self.corsGrants.forget(pair)
                    _ = try? await self.store.purgeEntry(key)
                }
                return
            }
            if let grant = preflight.grant(from: response) {
                self.remember(grant, for: pair)
            }
            return
        }
        let pair = self.corsPair(method: request.method.wireName, url: url, page: page)
        guard let grant = CORSGrant(response: response, pageOrigin: page) else {
            // The origin no longer grants the page this URL (a 5xx, often a gateway's, says nothing of it).
            if status < 500, self.corsGrants.mayKnow(pair) {
                self.background.submit { await self.corsGrants.forget(pair) }
            }
            return
        }
        self.remember(grant, for: pair)
    }

    private func remember(_ grant: CORSGrant, for pair: CORSGrants.Pair) {
        guard self.corsGrants.remember(grant, for: pair) else { return }
        let now = self.configuration.now()
        self.background.submit { await self.corsGrants.store(grant, for: pair, at: now) }
    }

    /// The grant for an answer Larder makes in the origin's place to `request` (``CORSInOriginsPlace``):
    /// what the origin gave its page origin for this URL and method, learned or in `stored` (a
    /// stored copy's fields), or the grant a listing in `pageOrigins` gives. Nil for a request
    /// from no other page origin, or none granted. A preflight the origin allowed vouches for
    /// Larder's own answers (a queued write's `202`, its pages), not for a stored copy: the copy's
    /// own answer may have granted nothing, whatever the preflight said.
    func corsGrantInOriginsPlace(
        _ request: HTTPRequestHead, url: HTTPURL, stored: [HeaderField]? = nil, personal: Bool = false
    ) async -> CORSGrant? {
        guard let page = Self.corsPage(request.headers, url: url) else { return nil }
        let method = request.method.wireName
        var learned = await self.corsGrants.grant(for: self.corsPair(method: method, url: url, page: page))
        if learned == nil, stored == nil {
            learned = await self.corsGrants.grant(for: self.corsPair(method: method, url: url, page: page, preflight: true))
        }
        let evidence = CORSInOriginsPlace.Evidence(
            learned: learned,
            stored: stored.flatMap { CORSGrant(response: $0, pageOrigin: page) },
            personal: personal,
            listed: self.configuration.listsPageOrigin(page, method: method, url: url))
        return CORSInOriginsPlace.grant(page: page, evidence)
    }

    /// The CORS fields of a page or answer Larder makes itself in the origin's place.
    func corsFieldsInOriginsPlace(_ request: HTTPRequestHead, url: HTTPURL) async -> [HeaderField] {
        await self.corsGrantInOriginsPlace(request, url: url)?.fields ?? []
    }

    /// Answers a preflight the origin could not answer, with no stored answer of its own to use,
    /// when the queue route or declared request covering what it asks lists its page origin in
    /// `pageOrigins` (``CORSInOriginsPlace/preflightAnswer(_:listed:)``); nil, having written
    /// nothing, otherwise: a grant learned elsewhere never answers it.
    func answerPreflightForListedPage(
        _ preflight: CORSPreflight, url: HTTPURL, cacheStatus: CacheStatus, writer: ResponseWriter
    ) async throws -> Outcome? {
        let listed = self.configuration.listsPageOrigin(preflight.pageOrigin, method: preflight.method, url: url)
        guard let fields = CORSInOriginsPlace.preflightAnswer(preflight, listed: listed) else { return nil }
        var status = cacheStatus
        status.detail = "preflight-listed-page" + (cacheStatus.detail.map { "+" + $0 } ?? "")
        var headers = HTTPHeaders(fields)
        ProxyAnswerFields.add(to: &headers, via: false, cacheStatus: status, disconnected: true)
        headers.add(name: "Content-Length", value: "0")
        try await writer.whole(.noContent, headers, body: nil)
        return Outcome(status: 204, cacheStatus: status, reusable: true)
    }
}

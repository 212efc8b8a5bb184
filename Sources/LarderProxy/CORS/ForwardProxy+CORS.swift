import Foundation
import LarderHTTP
import NIOHTTP1

/// CORS when the origin cannot answer (docs/SERVING.md): grants learned from the origin's
/// answers, and given on the answers Larder makes in its place.
extension ForwardProxy {
    /// The origin and page origin of a request from a page of another origin than `url`'s; nil
    /// for any other request (a same-origin page's `Origin` needs no grant).
    static func corsPair(_ request: some HeaderFields, url: HTTPURL) -> CORSGrants.Pair? {
        guard let page = CORSGrant.pageOrigin(of: request), page != url.origin else { return nil }
        return CORSGrants.Pair(target: url.origin, page: page)
    }

    /// Learns what an upstream answer to `request` grants its page origin; a new or changed
    /// grant is kept in the store in the background.
    func learnCORSGrant(from response: some HeaderFields, request: HTTPRequestHead) {
        guard request.headers.contains(name: "origin"), response.contains(name: "access-control-allow-origin"),
            let url = try? HTTPURL(parsing: request.uri), let pair = Self.corsPair(request.headers, url: url),
            let grant = CORSGrant(response: response, pageOrigin: pair.page), self.corsGrants.remember(grant, for: pair)
        else { return }
        let now = self.configuration.now()
        self.background.submit { await self.corsGrants.store(grant, for: pair, at: now) }
    }

    /// The grant for an answer Larder makes in the origin's place to `request`: the one the
    /// origin last gave its page origin, else what `stored` (a stored copy's fields) grants that
    /// page origin itself. Nil for a request from no other page origin, or none granted.
    func corsGrantInOriginsPlace(_ request: HTTPRequestHead, url: HTTPURL, stored: [HeaderField] = []) async -> CORSGrant? {
        guard let pair = Self.corsPair(request.headers, url: url) else { return nil }
        if let learned = await self.corsGrants.grant(for: pair) { return learned }
        return CORSGrant(response: stored, pageOrigin: pair.page)
    }

    /// The CORS fields of a page or answer Larder makes itself in the origin's place.
    func corsFieldsInOriginsPlace(_ request: HTTPRequestHead, url: HTTPURL) async -> [HeaderField] {
        await self.corsGrantInOriginsPlace(request, url: url)?.fields ?? []
    }

    /// Answers a preflight the origin could not answer from the grant it gave the page origin,
    /// when a declared request, a keyed route or a queue route covers the request it asks about
    /// (so Larder will answer or keep it); nil, having written nothing, otherwise.
    func answerPreflightFromGrant(
        _ preflight: CORSPreflight, head: HTTPRequestHead, url: HTTPURL, cacheStatus: CacheStatus, writer: ResponseWriter
    ) async throws -> Outcome? {
        guard self.configuration.answersInOriginsPlace(method: preflight.method, url: url),
            let pair = Self.corsPair(head.headers, url: url), let grant = await self.corsGrants.grant(for: pair)
        else { return nil }
        var status = cacheStatus
        status.detail = "preflight-from-grant" + (cacheStatus.detail.map { "+" + $0 } ?? "")
        var headers = HTTPHeaders(preflight.answer(from: grant))
        ProxyAnswerFields.add(to: &headers, via: false, cacheStatus: status, disconnected: true)
        headers.add(name: "Content-Length", value: "0")
        try await writer.whole(.noContent, headers, body: nil)
        return Outcome(status: 204, cacheStatus: status, reusable: true)
    }
}

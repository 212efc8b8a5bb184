import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOHTTP1

extension ForwardProxy {
    // MARK: - Everything else

    /// Forwards a request that the cache does not answer (unsafe methods, requests with bodies).
    /// `detail`, when given, is added to the answer's `Cache-Status` detail (after a `+` when
    /// there is one already). `client` says what it may make Larder reach (``reach(for:)``).
    /// `withheldDeclared` names a declared request whose stored answer this request may not have:
    /// an error answer says so.
    func serveUncacheable(
        _ head: HTTPRequestHead,
        url: HTTPURL,
        client: AnswerOwner.Client,
        body: UpstreamRequestBody?,
        writer: ResponseWriter,
        detail: String? = nil,
        withheldDeclared: String? = nil
    ) async throws -> Outcome {
        let withheld = withheldDeclared.map {
            StatusPage.declaredWithheld($0, pageOrigin: DeclaredAnswerAccess.pageOrigin(of: head.headers))
        }
        let isHead = head.method == .HEAD
        func details(_ own: String) -> String {
            let text = detail.map { own + "+" + $0 } ?? own
            // Only on the error answer: online the origin's answer is all there is to say.
            return withheldDeclared == nil ? text : text + "+declared-withheld"
        }
        if self.offline.isOffline {
            let status = CacheStatus.forward(.method, detail: details("offline"))
            let page = StatusPage(
                status: .gatewayTimeout,
                title: "Offline",
                paragraphs: ["Larder is in offline mode; \(head.method.wireName) requests need the network."]
                    + (withheld.map { [$0] } ?? []),
                url: url.absoluteString
            )
            self.offlineMissLog.record(head, url: url, cacheStatus: status, declaredRequest: withheldDeclared)
            try await writer.page(
                page, cacheStatus: status, close: false, isHead: isHead, extraHeaders: await self.corsFieldsInOriginsPlace(head, url: url))
            return Outcome(status: 504, cacheStatus: status, reusable: true)
        }
        var request = UpstreamRequest(
            method: head.method.wireName, url: url.absoluteString, headers: UpstreamRequestPlan.forwardedFields(head.headers.fields),
            body: body)
        request.connectTimeout = self.configuration.connectTimeout
        request.idleTimeout = self.configuration.idleTimeout
        request.reach = self.reach(for: client)
        let response: UpstreamResponse
        do {
            response = try await self.upstream.execute(request)
        } catch let error as UpstreamError where error.kind == .forbiddenAddress {
            return try await self.refuseForbiddenAddress(error, head: head, writer: writer, close: body != nil)
        } catch let error as UpstreamError {
            let status = CacheStatus.forward(.method, detail: details("upstream-unreachable"))
            let code: HTTPResponseStatus = error.kind == .timeout || error.kind == .connectTimeout ? .gatewayTimeout : .badGateway
            let page = StatusPage.upstreamFailure(
                url: url.absoluteString, status: code, reason: error.description, cachedButUnusable: withheld ?? "")
            self.offlineMissLog.record(head, url: url, cacheStatus: status, declaredRequest: withheldDeclared)
            try await writer.page(
                page, cacheStatus: status, close: body != nil, isHead: isHead,
                extraHeaders: await self.corsFieldsInOriginsPlace(head, url: url))
            return Outcome(status: Int(code.code), cacheStatus: status, reusable: body == nil)
        }
        await self.invalidator.invalidate(after: response.head, url: url)
        return try await self.relay(
            response, request: head, writer: writer,
            relay: CacheTransaction.Relay(forwardReason: .method, storeAs: nil, notStoredReason: nil, detail: detail))
    }
}

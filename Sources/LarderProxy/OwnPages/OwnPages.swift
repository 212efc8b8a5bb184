import LarderHTTP
import LarderIntrospection
import NIOCore
import NIOHTTP1

/// The pages Larder serves at its own address (`http://127.0.0.1:8080/...`).
struct OwnPages: Sendable {
    /// The address clients reach the proxy at, e.g. `127.0.0.1:8080`.
    let proxyAuthority: String
    /// The precache job API.
    let precache: PrecacheAPI
    /// Pages served by another module: /dev/offline, its JSON twins and controls, and /metrics
    /// (LarderDevOffline); nil: none, those paths are not found.
    let responder: (any OwnPageResponder)?
    /// Larder's CA certificate, served at /ca.pem; nil when HTTPS interception is off.
    let caCertificatePEM: String?

    /// Serves `path`, or a 404 page. `client`: where the connection comes from (loopback
    /// spellings of Larder's origin are its own only for this machine).
    func respond(path: String, request: HTTPRequestHead, body: ByteBuffer, client: AnswerOwner.Client, writer: ResponseWriter) async throws
        -> Int
    {
        let isHead = request.method == .HEAD
        if path == PrecacheAPI.path || path.hasPrefix(PrecacheAPI.path + "/") {
            return try await self.precache.respond(
                path: path, request: request, body: body, clientIsLoopback: client == .local, writer: writer)
        }
        if let responder = self.responder, responder.handles(path: path) {
            let response = await responder.respond(
                to: OwnPageRequest(
                    method: request.method.wireName, target: request.uri, path: path, query: Self.query(of: request.uri),
                    headers: request.headers.fields, body: Array(body.readableBytesView), client: client))
            try await writer.complete(
                HTTPResponseStatus(statusCode: response.status), headers: HTTPHeaders(response.headers), body: response.body, isHead: isHead
            )
            return response.status
        }
        guard request.method == .GET || isHead else {
            try await writer.page(
                .refusal(.methodNotAllowed, reason: "\(path) answers GET and HEAD only."), cacheStatus: nil, close: false, isHead: isHead)
            return 405
        }
        var headers = HTTPHeaders()
        headers.add(name: "cache-control", value: "no-store")
        switch path {
        case "/":
            headers.add(name: "content-type", value: "text/html; charset=utf-8")
            try await writer.complete(.ok, headers: headers, body: self.landingPage, isHead: isHead)
            return 200
        case "/proxy.pac":
            headers.add(name: "content-type", value: "application/x-ns-proxy-autoconfig")
            let pac = """
                function FindProxyForURL(url, host) {
                  if (isPlainHostName(host) && host === "localhost") return "DIRECT";
                  return "PROXY \(self.proxyAuthority)";
                }

                """
            try await writer.complete(.ok, headers: headers, body: pac, isHead: isHead)
            return 200
        case "/ca.pem":
            guard let pem = self.caCertificatePEM else {
                let page = StatusPage.refusal(.notFound, reason: "HTTPS interception is off (--no-intercept): there is no CA to trust.")
                try await writer.page(page, cacheStatus: nil, close: false, isHead: isHead)
                return 404
            }
            headers.add(name: "content-type", value: "application/x-pem-file")
            headers.add(name: "content-disposition", value: "attachment; filename=\"larder-ca.pem\"")
            try await writer.complete(.ok, headers: headers, body: pem, isHead: isHead)
            return 200
        default:
            let page = StatusPage.refusal(.notFound, reason: "Larder has no page at \(path).")
            try await writer.page(page, cacheStatus: nil, close: false, isHead: isHead)
            return 404
        }
    }

    /// The query of a request target (origin-form or absolute-form), without the fragment.
    static func query(of target: String) -> String? {
        let withoutFragment = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.count > 1 ? String(parts[1]) : nil
    }

    private var landingPage: String {
        let authority = self.proxyAuthority.htmlEscaped
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Larder</title>
            <style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
            code,pre{background:#f4f4f4;border-radius:4px;padding:.1rem .3rem}pre{padding:.6rem;overflow-x:auto}</style>
            </head><body>
            <h1>Larder is running</h1>
            <p>Larder is a caching proxy: it keeps what you browse and serves it when the network is gone.</p>
            <h2>Use it</h2>
            <ul>
            <li>Browser or webview: set the HTTP proxy to <code>\(authority)</code>, or the automatic configuration URL to <code>http://\(authority)/proxy.pac</code>.</li>
            <li>curl: <pre>curl -x http://\(authority) http://example.com/</pre></li>
            </ul>
            <p>Every answer carries a <code>Cache-Status</code> header saying whether it came from the cache.
            <a href="/dev/offline">/dev/offline</a> shows what is cached and which games work offline.</p>
            </body></html>

            """
    }
}

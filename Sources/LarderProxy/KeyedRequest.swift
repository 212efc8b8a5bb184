import LarderHTTP
import NIOCore

/// A request keyed by its body (or its GraphQL GET form) as well as its URL, and why
/// (docs/SERVING.md, "Requests with bodies").
struct KeyedRequest: Sendable {
    /// The URL's key; for a GraphQL GET form, of the URL without its GraphQL parameters.
    var urlKey: CacheKey
    /// How the body becomes part of the key.
    var bodyKey: BodyKey
    /// A declared request, or a route's opt-in.
    var reason: CacheTransaction.Keyed
}

extension ProxyConfiguration {
    /// How a request is keyed, nil when it is not: by the declared request with the same method
    /// and URL key (`declared`), else by the first route covering the URL key, when it opts the
    /// method in (``CacheRoute/bodyKey(forMethod:hasGraphQLQuery:)``). A GET is keyed only as a
    /// GraphQL form, by `graphql`. Call it only for requests that could be keyed: with a body, or a
    /// GET with a GraphQL `query` parameter (``HTTPURL/hasGraphQLQuery``).
    func keying(method: String, url: HTTPURL) -> KeyedRequest? {
        let isGet = method == "GET"
        let urlKey = CacheKey(url: isGet ? url.withoutGraphQLParameters : url, filter: self.queryFilter)
        for declared in self.declaredMatches(now: self.now()) where declared.method == method && (!isGet || declared.bodyKey == .graphql) {
            let declaredKey = CacheKey(url: isGet ? declared.url.withoutGraphQLParameters : declared.url, filter: self.queryFilter)
            if declaredKey == urlKey {
                return KeyedRequest(urlKey: urlKey, bodyKey: declared.bodyKey, reason: .declared)
            }
        }
        guard let bodyKey = self.route(for: urlKey)?.bodyKey(forMethod: method, hasGraphQLQuery: isGet) else { return nil }
        return KeyedRequest(urlKey: urlKey, bodyKey: bodyKey, reason: .route)
    }
}

/// A keyed request with its body read: what ``ForwardProxy/serveCacheable(_:url:writer:keyed:)`` serves.
struct KeyedServing: Sendable {
    /// How and why it is keyed.
    var request: KeyedRequest
    /// The keyed key its answers are stored under.
    var key: CacheKey
    /// The body sent upstream (nil for a GraphQL GET form).
    var body: ByteBuffer?

    /// `request` for a body (or GraphQL GET form) with `digest`, sent with `method`.
    init(_ request: KeyedRequest, method: String, digest: String, body: ByteBuffer?) {
        self.request = request
        self.key = request.urlKey.keyed(method: method, bodyKey: request.bodyKey, digest: digest)
        self.body = body
    }
}

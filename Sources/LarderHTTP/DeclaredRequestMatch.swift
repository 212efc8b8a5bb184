/// A request the config declares (issue 16 item 1), as the proxy matches the app's requests to it:
/// an app's request with the same method and the same URL key is keyed by `bodyKey`, and answered
/// from the store while the origin cannot answer (docs/SERVING.md, "Requests with bodies").
public struct DeclaredRequestMatch: Sendable, Hashable {
    /// The declared request's name.
    public var name: String
    /// The method, upper-case.
    public var method: String
    /// The URL with its placeholders resolved as of now; compared by `CacheKey(url:filter:)` (for
    /// GET graphql forms, of the URL without its graphql parameters).
    public var url: HTTPURL
    /// How the body (or GraphQL GET form) becomes part of the key.
    public var bodyKey: BodyKey

    /// A declared request.
    public init(name: String, method: String, url: HTTPURL, bodyKey: BodyKey) {
        self.name = name
        self.method = method
        self.url = url
        self.bodyKey = bodyKey
    }
}

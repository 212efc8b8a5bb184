import Crypto

/// How a request body becomes part of its cache key (docs/SERVING.md, "Requests with bodies").
public enum BodyKey: String, Sendable, CaseIterable, Hashable {
    /// SHA-256 of the body's bytes.
    case exact
    /// SHA-256 of the body's canonical JSON (``CanonicalJSON``): member order and whitespace do not matter.
    case json
    /// SHA-256 of a GraphQL request's canonical form (``GraphQLRequest``): `operationName`, the
    /// normalised query document, canonical `variables` and `extensions`.
    case graphql

    /// The largest body keyed: 1 MiB. Larger bodies are forwarded unkeyed (never held whole).
    public static let maximumBodySize = 1024 * 1024

    /// The digest (lower-case hex, SHA-256) of a whole body under this key; nil when the body does
    /// not fit the kind: not JSON for `json`; for `graphql` not a GraphQL request object
    /// (`{"query": ..., "variables": ..., "operationName": ...}`), or a mutation or subscription
    /// (those are writes, never answered from a store).
    public func digest(of body: [UInt8]) -> String? {
        switch self {
        case .exact:
            return Self.sha256(body)
        case .json:
            guard let value = try? JSONParser.parse(body) else { return nil }
            return Self.sha256(CanonicalJSON.bytes(of: value))
        case .graphql:
            guard let value = try? JSONParser.parse(body), let request = GraphQLRequest(body: value) else { return nil }
            return Self.sha256(request.canonicalBytes)
        }
    }

    /// The graphql digest of a GET `?query=` form: from the URL's query parameters `query`,
    /// `operationName`, `variables` (a JSON string) and `extensions` (a JSON string); nil when
    /// there is no `query` (nor persisted-query `extensions`), or it is a mutation. Equal to
    /// ``digest(of:)`` of the equivalent POST body.
    public static func graphQLDigest(queryOf url: HTTPURL) -> String? {
        guard let request = GraphQLRequest(queryOf: url) else { return nil }
        return Self.sha256(request.canonicalBytes)
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        LowercaseHex.string(Array(SHA256.hash(data: bytes)))
    }
}

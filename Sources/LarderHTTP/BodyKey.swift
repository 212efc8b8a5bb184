// STUB until the post-keys branch merges (its BodyKey replaces this file).
public enum BodyKey: String, Sendable, CaseIterable, Hashable {
    case exact, json, graphql
    public static let maximumBodySize = 1 << 20
    public func digest(of body: [UInt8]) -> String? { String(body.hashValue) }
    public static func graphQLDigest(queryOf url: HTTPURL) -> String? { nil }
}

extension CacheKey {
    public func keyed(method: String, bodyKey: BodyKey, digest: String) -> CacheKey {
        CacheKey(storedRawValue: "\(self.rawValue)#\(method)=\(bodyKey.rawValue):\(digest)")
    }
    public var isKeyed: Bool { self.rawValue.contains("#") && !self.isVariant }
}

public struct DeclaredRequestMatch: Sendable, Hashable {
    public var name: String
    public var method: String
    public var url: HTTPURL
    public var bodyKey: BodyKey
    public init(name: String, method: String, url: HTTPURL, bodyKey: BodyKey) {
        self.name = name
        self.method = method
        self.url = url
        self.bodyKey = bodyKey
    }
}

extension CacheKey {
    /// The key a request keyed by its body (or a GraphQL GET form) is stored under:
    /// `<url key>#<METHOD>=<bodyKey>:<digest>`, e.g. `https://api.example/graphql#POST=graphql:3f2a…`.
    /// A fragment never survives normalisation, so no URL key collides with it. For a GraphQL GET
    /// form, the URL key is the URL without its `query`, `operationName`, `variables` and
    /// `extensions` parameters (``HTTPURL/withoutGraphQLParameters``).
    public func keyed(method: String, bodyKey: BodyKey, digest: String) -> CacheKey {
        CacheKey(storedRawValue: "\(self.rawValue)#\(method)=\(bodyKey.rawValue):\(digest)")
    }

    /// The keys of this URL key's requests of `method` keyed with `bodyKey`, whatever their
    /// digests: `[<url key>#<METHOD>=<bodyKey>:, <url key>#<METHOD>=<bodyKey>;)`, `;` following `:`.
    public func keyedRange(method: String, bodyKey: BodyKey) -> Range<String> {
        let stem = "\(self.rawValue)#\(method)=\(bodyKey.rawValue)"
        return (stem + ":")..<(stem + ";")
    }

    /// Whether this key names a keyed request (see ``keyed(method:bodyKey:digest:)``), or a variant of one.
    public var isKeyed: Bool {
        guard let hash = self.rawValue.firstIndex(of: "#") else { return false }
        return !self.rawValue[hash...].hasPrefix(Self.variantSeparator)
    }
}

extension HTTPURL {
    /// Whether the URL has a GraphQL GET form's `query` parameter (or `extensions`, for a
    /// persisted query sent without its document).
    public var hasGraphQLQuery: Bool {
        guard let query = self.query else { return false }
        return query.split(separator: "&").contains { parameter in
            let name = PercentEncoding.decoded(Array(parameter.prefix { $0 != "=" }.utf8))
            return name == "query" || name == "extensions"
        }
    }

    /// The URL without the GraphQL GET form's parameters (`query`, `operationName`, `variables`,
    /// `extensions`): what the rest of the key of such a request is made of.
    public var withoutGraphQLParameters: HTTPURL {
        guard let query = self.query else { return self }
        var url = self
        let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { parameter in
            let name = PercentEncoding.decoded(Array(parameter.prefix { $0 != "=" }.utf8))
            return !GraphQLRequest.parameterNames.contains(name)
        }
        url.query = kept.isEmpty ? nil : kept.joined(separator: "&")
        return url
    }
}

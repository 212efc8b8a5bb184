extension HTTPURL {
    /// The origin (RFC 6454): `scheme://host`, with the port when it is not the scheme's default.
    public var origin: String {
        "\(self.scheme)://\(self.authority)"
    }

    /// Whether the URL names a page (`.html`, `.htm`, or a folder): precache fetches pages on
    /// every run, never taking them as immutable.
    public var isPage: Bool {
        let path = self.path.lowercased()
        return path.isEmpty || path.hasSuffix("/") || path.hasSuffix(".html") || path.hasSuffix(".htm")
    }

    /// Whether a precached copy of the URL is refreshed from the network first: pages and
    /// manifests (`.json`); every other precached file is served from the cache.
    public var isNetworkFirstWhenPrecached: Bool {
        self.isPage || self.path.lowercased().hasSuffix(".json")
    }
}

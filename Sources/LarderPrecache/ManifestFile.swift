import LarderHTTP
import LarderStore

/// One file a manifest lists, resolved to an absolute URL.
public struct ManifestFile: Sendable, Hashable {
    /// The resolved URL, as the runner fetches it.
    public var url: HTTPURL
    /// The cache key the file is stored under.
    public var key: CacheKey
    /// The Workbox revision of the file, when the manifest gives one; nil for hashed file names.
    public var revision: String?

    /// Creates a manifest file.
    public init(url: HTTPURL, key: CacheKey, revision: String?) {
        self.url = url
        self.key = key
        self.revision = revision
    }
}

import Crypto
import LarderHTTP
import LarderStore

/// A parsed precache manifest: the files a game needs offline, resolved and de-duplicated.
///
/// Three formats are accepted, detected from the content (see ``ManifestFormat``):
/// `offline.meta.json` (`{"files": [...], "skip": false}`), a Workbox precache array, and a Vite
/// `.vite/manifest.json`.
public struct PrecacheManifest: Sendable, Hashable {
    /// The format the document was recognised as.
    public var format: ManifestFormat
    /// The files to precache, de-duplicated by cache key (first wins), in manifest order.
    public var files: [ManifestFile]
    /// Whether the manifest asks not to precache the game (`"skip": true`); only `offline.meta.json` has it.
    public var skip: Bool
    /// Entries left out: on another origin than the manifest (unless allowed), not http(s), or not a URL.
    public var refused: [RefusedEntry]
    /// The SHA-256 (lower-case hex) of the files' sorted keys with their revisions, one per line
    /// (`KEY` or `KEY REVISION`): it changes exactly when the set of files or a revision changes.
    public var revision: String

    /// The largest manifest body accepted: 8 MiB.
    public static let maximumBodySize = 8 * 1024 * 1024
    /// The most entries a manifest may list.
    public static let maximumEntryCount = 100_000

    /// Creates a manifest from resolved files, computing ``revision``.
    public init(format: ManifestFormat, files: [ManifestFile], skip: Bool, refused: [RefusedEntry]) {
        self.format = format
        self.files = files
        self.skip = skip
        self.refused = refused
        self.revision = Self.revision(of: files)
    }

    /// Parses a fetched manifest.
    ///
    /// - Parameters:
    ///   - status: The HTTP status; anything but 200 is an error.
    ///   - contentType: The `Content-Type` header; it must be JSON (see ``JSONMediaType``).
    ///   - body: The response body, at most ``maximumBodySize`` bytes.
    ///   - manifestURL: Where the manifest came from; Workbox entries resolve against it, Vite entries
    ///     against the folder holding its `.vite` folder, and it decides the origin entries must share.
    ///   - root: The game root; `offline.meta.json` entries resolve against its parent folder, so
    ///     `flipart/a.js` under root `https://cdn.example/games/flipart` (with or without a trailing
    ///     `/`) is `https://cdn.example/games/flipart/a.js`.
    ///   - allowCrossOrigin: Whether entries on another origin (scheme, host, port) than the manifest
    ///     are kept rather than refused.
    ///   - queryFilter: The query parameters left out of cache keys; use the store's filter.
    /// - Throws: ``ManifestError`` naming the manifest and the problem: the status, the content type,
    ///   the size, the JSON syntax error's position, or the first entry of the wrong type.
    public static func parse(
        status: Int,
        contentType: String?,
        body: [UInt8],
        manifestURL: HTTPURL,
        root: HTTPURL,
        allowCrossOrigin: Bool,
        queryFilter: QueryParameterFilter = .default
    ) throws(ManifestError) -> PrecacheManifest {
        let document = try Self.document(status: status, contentType: contentType, body: body, manifestURL: manifestURL)
        func failure(_ problem: String) -> ManifestError {
            ManifestError(manifestURL: manifestURL, problem: problem)
        }

        let listing: ManifestListing
        do {
            listing = try ManifestListing(document: document, manifestURL: manifestURL, root: root)
        } catch {
            throw failure(error.message)
        }

        var files: [ManifestFile] = []
        var refused: [RefusedEntry] = []
        var seenKeys: Set<CacheKey> = []
        for entry in listing.entries {
            switch Self.resolve(
                entry.reference,
                against: listing.base,
                manifestURL: manifestURL,
                allowCrossOrigin: allowCrossOrigin
            ) {
            case .url(let url):
                let key = CacheKey(url: url, filter: queryFilter)
                if seenKeys.insert(key).inserted {
                    files.append(ManifestFile(url: url, key: key, revision: entry.revision))
                }
            case .refused(let refusal):
                refused.append(refusal)
            }
        }
        return PrecacheManifest(format: listing.format, files: files, skip: listing.skip, refused: refused)
    }

    /// The JSON document of a fetched manifest (a game's or a series'), or the error naming the
    /// manifest and its status, content type, size or JSON syntax error.
    static func document(status: Int, contentType: String?, body: [UInt8], manifestURL: HTTPURL) throws(ManifestError) -> JSONValue {
        func failure(_ problem: String) -> ManifestError {
            ManifestError(manifestURL: manifestURL, problem: problem)
        }

        guard status == 200 else {
            throw failure("answered HTTP \(status)")
        }
        guard let contentType else {
            throw failure("served without a Content-Type, not as JSON")
        }
        guard JSONMediaType.names(contentType) else {
            let mediaType = JSONMediaType.mediaType(of: contentType)
            throw failure(
                mediaType.isEmpty
                    ? "served with an empty Content-Type, not as JSON" : "served as \(mediaType), not JSON"
            )
        }
        guard body.count <= Self.maximumBodySize else {
            throw failure("is \(body.count) bytes long; the limit is \(Self.maximumBodySize) (8 MiB)")
        }

        let document: JSONValue
        do {
            document = try JSONParser.parse(body)
        } catch {
            throw failure("is not valid JSON: \(error)")
        }

        return document
    }

    enum EntryResolution {
        case url(HTTPURL)
        case refused(RefusedEntry)
    }

    /// Resolves one entry to a URL the runner may fetch, or says why not.
    static func resolve(
        _ entry: String,
        against base: HTTPURL,
        manifestURL: HTTPURL,
        allowCrossOrigin: Bool
    ) -> EntryResolution {
        if entry.trimmingUnicodeWhitespace().isEmpty {
            return .refused(RefusedEntry(url: entry, reason: "the entry is empty"))
        }
        let (scheme, target) = URLReference(entry).resolved(against: base)
        guard scheme == "http" || scheme == "https" else {
            return .refused(
                RefusedEntry(url: entry, reason: "it is not an http(s) URL (scheme \(scheme.debugDescription))")
            )
        }
        let url: HTTPURL
        do {
            url = try HTTPURL(parsing: target)
        } catch {
            return .refused(RefusedEntry(url: target, reason: "it is not a valid URL: \(error.reason)"))
        }
        let sameOrigin =
            url.scheme == manifestURL.scheme && url.host == manifestURL.host
            && url.effectivePort == manifestURL.effectivePort
        guard sameOrigin || allowCrossOrigin else {
            return .refused(
                RefusedEntry(
                    url: url.absoluteString,
                    reason: "it is on \(url.origin), another origin than the manifest "
                        + "(\(manifestURL.origin)); cross-origin entries are not allowed"
                )
            )
        }
        return .url(url)
    }

    private static func revision(of files: [ManifestFile]) -> String {
        let lines = files.map { file in
            file.revision.map { "\(file.key.rawValue) \($0)" } ?? file.key.rawValue
        }
        return LowercaseHex.string(Array(SHA256.hash(data: Array(lines.sorted().joined(separator: "\n").utf8))))
    }
}

import Foundation

/// A folder served by ``TestOrigin`` at a URL path prefix.
struct StaticDirectory: Sendable {
    /// The folder, without a trailing `/`.
    let root: String
    /// The URL path prefix, starting and ending with `/`.
    let prefix: String
    let cacheControlForPath: @Sendable (String) -> String?

    init(root: String, prefix: String, cacheControlForPath: @escaping @Sendable (String) -> String?) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") {
            root.removeLast()
        }
        var prefix = prefix.hasPrefix("/") ? prefix : "/" + prefix
        if !prefix.hasSuffix("/") {
            prefix += "/"
        }
        self.root = root
        self.prefix = prefix
        self.cacheControlForPath = cacheControlForPath
    }

    /// The answer to `request` from this folder, or `nil` when the path is outside its prefix.
    func answer(_ request: RecordedRequest) -> TestResponse? {
        guard let decodedPath = request.path.removingPercentEncoding else {
            return .text("bad percent-encoding in \(request.path)\n", status: 400)
        }
        let relative: Substring
        if decodedPath.hasPrefix(self.prefix) {
            relative = decodedPath.dropFirst(self.prefix.count)
        } else if decodedPath + "/" == self.prefix {
            return Self.redirect(to: self.prefix)
        } else {
            return nil
        }
        let segments = relative.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: { $0 == ".." || $0 == "." || $0.contains("\0") }) {
            return .text("refused: \(decodedPath) leaves the served folder\n", status: 403)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text("method \(request.method) not allowed\n", status: 405, headers: [(name: "Allow", value: "GET, HEAD")])
        }

        var relativePath = String(relative)
        if relativePath.isEmpty || relativePath.hasSuffix("/") {
            relativePath += "index.html"
        }
        let filePath = self.root + "/" + relativePath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: filePath, isDirectory: &isDirectory) else {
            return .text("not found: \(decodedPath)\n", status: 404)
        }
        if isDirectory.boolValue {
            return Self.redirect(to: request.path + "/")
        }
        guard
            let attributes = try? FileManager.default.attributesOfItem(atPath: filePath),
            let size = (attributes[.size] as? NSNumber)?.int64Value,
            let modified = attributes[.modificationDate] as? Date
        else {
            return .text("cannot read \(decodedPath)\n", status: 500)
        }
        let modifiedSeconds = Int64(modified.timeIntervalSince1970.rounded(.down))
        let etag = "\"\(String(size, radix: 16))-\(String(modifiedSeconds, radix: 16))\""
        var headers: [(name: String, value: String)] = [
            (name: "Content-Type", value: ContentTypes.forPath(relativePath)),
            (name: "ETag", value: etag),
            (name: "Last-Modified", value: HTTPDate.format(Date(timeIntervalSince1970: Double(modifiedSeconds)))),
        ]
        if let cacheControl = self.cacheControlForPath(relativePath) {
            headers.append((name: "Cache-Control", value: cacheControl))
        }
        if Self.isNotModified(request, etag: etag, modifiedSeconds: modifiedSeconds) {
            return TestResponse(status: 304, headers: headers)
        }
        return TestResponse(status: 200, headers: headers, body: .file(path: filePath, length: size))
    }

    /// Whether the conditional headers of `request` match: `If-None-Match` wins over
    /// `If-Modified-Since` (RFC 9110 13.2.2).
    private static func isNotModified(_ request: RecordedRequest, etag: String, modifiedSeconds: Int64) -> Bool {
        if let ifNoneMatch = request.header("If-None-Match") {
            let tags = ifNoneMatch.split(separator: ",").map {
                let tag = $0.trimmingCharacters(in: .whitespaces)
                return tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
            }
            return tags.contains("*") || tags.contains(etag)
        }
        if let ifModifiedSince = request.header("If-Modified-Since"),
            let since = HTTPDate.parse(ifModifiedSince)
        {
            return modifiedSeconds <= Int64(since.timeIntervalSince1970)
        }
        return false
    }

    private static func redirect(to location: String) -> TestResponse {
        .text("moved to \(location)\n", status: 301, headers: [(name: "Location", value: location)])
    }
}

/// `Content-Type` values by file extension.
enum ContentTypes {
    static let byExtension: [String: String] = [
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "json": "application/json",
        "map": "application/json",
        "txt": "text/plain; charset=utf-8",
        "xml": "application/xml",
        "png": "image/png",
        "jpg": "image/jpeg",
        "jpeg": "image/jpeg",
        "gif": "image/gif",
        "webp": "image/webp",
        "svg": "image/svg+xml",
        "ico": "image/x-icon",
        "wav": "audio/wav",
        "mp3": "audio/mpeg",
        "ogg": "audio/ogg",
        "mp4": "video/mp4",
        "webm": "video/webm",
        "wasm": "application/wasm",
        "woff": "font/woff",
        "woff2": "font/woff2",
        "ttf": "font/ttf",
        "pdf": "application/pdf",
    ]

    /// The type for `path` by its extension; `application/octet-stream` when unknown.
    static func forPath(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else {
            return "application/octet-stream"
        }
        return Self.byExtension[path[path.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}

/// The IMF-fixdate format of HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    private static func makeFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    static func format(_ date: Date) -> String {
        Self.makeFormatter().string(from: date)
    }

    static func parse(_ text: String) -> Date? {
        Self.makeFormatter().date(from: text.trimmingCharacters(in: .whitespaces))
    }
}

import LarderHTTP

extension CachedEntry {
    /// Whether the stored response is a page or data rather than a static asset: an HTML document
    /// (`text/html`, XHTML) or JSON (``JSONMediaType``), whatever its URL.
    public var isPageOrData: Bool {
        guard let type = self.header("content-type") else { return false }
        return self.isHTML || JSONMediaType.names(type)
    }

    /// Whether the stored response is an HTML document (`text/html`, XHTML).
    public var isHTML: Bool {
        guard let type = self.header("content-type") else { return false }
        return ["text/html", "application/xhtml+xml"].contains(JSONMediaType.mediaType(of: type))
    }
}

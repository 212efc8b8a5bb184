extension HTTPURL {
    /// The http(s) URL a reference (`/a`, `../b`, `https://host/c`) names relative to this URL, as a
    /// browser resolves it (RFC 3986 section 5.2), or nil when it names no http(s) URL.
    public func resolving(_ reference: String) -> HTTPURL? {
        let target = URLReference(reference).resolved(against: self)
        guard target.scheme == "http" || target.scheme == "https" else { return nil }
        return try? HTTPURL(parsing: target.url)
    }
}

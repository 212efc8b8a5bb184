extension UpstreamRequest {
    /// Characters allowed in a method and a header field name (RFC 9110 `token`).
    private static let tokenCharacters = Set(
        "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8
    )

    /// Checks that the request can be sent as given, before any client sends a byte of it.
    ///
    /// - Throws: ``UpstreamError`` of kind ``UpstreamError/Kind/invalidRequest``: a URL that is not
    ///   `http` or `https` or holds spaces or control characters, a method or field name that is
    ///   not a token, a field value with CR, LF or NUL, or a `HEAD` with a body.
    package func validate() throws(UpstreamError) {
        func invalid(_ reason: String) -> UpstreamError {
            UpstreamError(kind: .invalidRequest, message: reason, url: self.url)
        }
        let lowercasedURL = self.url.lowercased()
        guard lowercasedURL.hasPrefix("http://") || lowercasedURL.hasPrefix("https://") else {
            throw invalid("only http and https URLs can be fetched, not \(self.url.debugDescription)")
        }
        guard !self.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw invalid("the URL \(self.url.debugDescription) contains spaces or control characters")
        }
        guard !self.method.isEmpty, self.method.utf8.allSatisfy({ Self.tokenCharacters.contains($0) }) else {
            throw invalid("invalid request method \(self.method.debugDescription)")
        }
        if self.method == "HEAD", self.body != nil {
            throw invalid("a HEAD request cannot have a body")
        }
        for field in self.headers {
            let (name, value) = (field.name, field.value)
            guard !name.isEmpty, name.utf8.allSatisfy({ Self.tokenCharacters.contains($0) }) else {
                throw invalid("invalid header field name \(name.debugDescription)")
            }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                throw invalid("the value of header field \(name) contains CR, LF or NUL")
            }
        }
    }
}

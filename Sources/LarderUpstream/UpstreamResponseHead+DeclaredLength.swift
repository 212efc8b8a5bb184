import LarderHTTP

extension UpstreamResponseHead {
    /// The body length this head promises in answer to `method`, when a client can hold the
    /// origin to it: none for `HEAD`, 1xx, 204 and 304, a chunked body, or conflicting lengths.
    package func declaredBodyLength(method: String) -> Int64? {
        if method == "HEAD" || self.status == 204 || self.status == 304 || (100..<200).contains(self.status) {
            return nil
        }
        if self.headers.first(name: "Transfer-Encoding") != nil {
            return nil
        }
        let lengths = Set(self.headers["Content-Length"].map { Int64($0) })
        guard lengths.count == 1, let length = lengths.first ?? nil else {
            return nil
        }
        return length
    }
}

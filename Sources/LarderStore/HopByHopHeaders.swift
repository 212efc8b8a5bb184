extension HeaderField {
    /// Header names that describe one connection rather than the response (RFC 9110 7.6.1), lower-cased.
    public static let hopByHopNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade", "proxy-authorization", "proxy-authenticate",
    ]

    /// Header names that must never be replayed from a cache to another request, lower-cased.
    public static let notReplayedNames: Set<String> = ["set-cookie", "set-cookie2"]

    /// The fields of `headers` that may be stored and replayed from the cache: hop-by-hop fields,
    /// the fields that `Connection` names, and `Set-Cookie`/`Set-Cookie2` are dropped; order is kept.
    public static func storable(_ headers: [HeaderField]) -> [HeaderField] {
        var dropped = Self.hopByHopNames.union(Self.notReplayedNames)
        for field in headers where field.hasName("connection") {
            for token in field.value.split(separator: ",") {
                let name = token.trimmingASCIIWhitespace().lowercased()
                if !name.isEmpty {
                    dropped.insert(name)
                }
            }
        }
        return headers.filter { !dropped.contains($0.name.lowercased()) }
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    func trimmingASCIIWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" {
            result.removeFirst()
        }
        while let last = result.last, last == " " || last == "\t" {
            result.removeLast()
        }
        return result
    }
}

/// Hop-by-hop header handling (RFC 9110 section 7.6.1): these describe one connection and are
/// never forwarded or stored, in either direction.
public enum HopByHopHeaders {
    /// Header names that are always connection-specific, lower-cased.
    public static let names: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade", "proxy-authorization", "proxy-authenticate",
    ]

    /// The lower-cased names of every connection-specific field of a message: the fixed ones and
    /// those its `Connection` fields list.
    public static func connectionSpecificNames(_ headers: some HeaderFields) -> Set<String> {
        var listed = self.names
        for value in headers["connection"] {
            for token in value.split(separator: ",") {
                let name = token.trimmingWhitespace().lowercased()
                if !name.isEmpty {
                    listed.insert(name)
                }
            }
        }
        return listed
    }

    /// `headers` without their connection-specific fields; order is kept.
    public static func removing(from headers: [HeaderField]) -> [HeaderField] {
        let dropped = self.connectionSpecificNames(headers)
        return headers.filter { !dropped.contains($0.name.lowercased()) }
    }
}

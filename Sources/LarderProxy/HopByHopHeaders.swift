import LarderStore
import NIOHTTP1

/// Hop-by-hop header handling (RFC 9110 section 7.6.1): these describe one connection
/// and are never forwarded, in either direction.
public enum HopByHopHeaders {
    /// Header names that are always connection-specific (the store's list: one definition).
    public static var names: Set<String> { HeaderField.hopByHopNames }

    /// A copy of `headers` without hop-by-hop fields and without those the `Connection` field names.
    public static func removing(from headers: HTTPHeaders) -> HTTPHeaders {
        var listed = self.names
        for value in headers["connection"] {
            for token in value.split(separator: ",") {
                listed.insert(token.trimmingWhitespace().lowercased())
            }
        }
        var result = HTTPHeaders()
        result.reserveCapacity(headers.count)
        for (name, value) in headers where !listed.contains(name.lowercased()) {
            result.add(name: name, value: value)
        }
        return result
    }
}

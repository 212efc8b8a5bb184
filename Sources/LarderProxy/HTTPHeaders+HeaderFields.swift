import LarderHTTP
import NIOHTTP1

/// NIO's headers already read and change fields by name as the rules in LarderHTTP expect.
extension HTTPHeaders: HeaderFields {}

extension HopByHopHeaders {
    /// A copy of `headers` without their connection-specific fields; order is kept.
    static func removing(from headers: HTTPHeaders) -> HTTPHeaders {
        let dropped = self.connectionSpecificNames(headers)
        var result = HTTPHeaders()
        result.reserveCapacity(headers.count)
        for (name, value) in headers where !dropped.contains(name.lowercased()) {
            result.add(name: name, value: value)
        }
        return result
    }
}

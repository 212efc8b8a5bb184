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

extension HTTPHeaders {
    /// NIO's headers made from the fields the rules and the upstream client use, in order.
    init(_ fields: [HeaderField]) {
        self.init()
        self.reserveCapacity(fields.count)
        for field in fields {
            self.add(name: field.name, value: field.value)
        }
    }

    /// These headers as the fields the rules and the upstream client use, in order.
    var fields: [HeaderField] {
        self.map { HeaderField(name: $0.name, value: $0.value) }
    }
}

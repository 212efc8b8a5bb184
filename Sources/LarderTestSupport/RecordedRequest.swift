/// A request as ``TestOrigin`` received it, kept so a test can check what reached the origin.
public struct RecordedRequest: Sendable {
    /// The request method, e.g. `GET`.
    public var method: String
    /// The request target as sent, path and query, e.g. `/a.js?v=2`.
    public var uri: String
    /// The request headers in the order they arrived.
    public var headers: [(name: String, value: String)]
    /// The request body bytes (empty when there was none).
    public var body: [UInt8]

    /// Creates a recorded request.
    public init(method: String, uri: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
    }

    /// The request target in origin form: ``uri``, less the scheme and authority of an
    /// absolute-form target (`http://host:1/a?b` -> `/a?b`).
    public var target: String {
        for scheme in ["http://", "https://"] where self.uri.lowercased().hasPrefix(scheme) {
            let afterScheme = self.uri.dropFirst(scheme.count)
            guard let pathStart = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) else {
                return "/"
            }
            let rest = afterScheme[pathStart...]
            return rest.hasPrefix("?") ? "/" + rest : String(rest)
        }
        return self.uri
    }

    /// The path part of ``target``, without the query.
    public var path: String {
        let target = self.target
        if let queryStart = target.firstIndex(of: "?") {
            return String(target[..<queryStart])
        }
        return target
    }

    /// The first value of the header `name` (case-insensitive), or `nil` when absent.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

extension String {
    /// ASCII case-insensitive comparison, as header names are compared.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        self.utf8.count == other.utf8.count && self.lowercased() == other.lowercased()
    }
}

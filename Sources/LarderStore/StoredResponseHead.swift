import LarderHTTP

import struct Foundation.Date

/// What the proxy hands the store about a response it is storing (the body goes through a ``BodyWriter``).
public struct StoredResponseHead: Sendable {
    /// The URL as requested, for display; a fragment is removed when the entry is stored.
    public var url: String
    /// The response status code.
    public var status: Int
    /// The response headers as received. The store drops hop-by-hop fields (see
    /// ``HeaderField/storable(_:)``) and `Set-Cookie`/`Set-Cookie2` itself.
    public var headers: [HeaderField]
    /// When the request was sent upstream.
    public var requestTime: Date
    /// When the response head arrived.
    public var responseTime: Date
    /// The request's values for the header names the response's `Vary` lists (`[]` without `Vary`).
    public var varyRequestHeaders: [HeaderField]

    /// Creates a response head to store.
    public init(
        url: String,
        status: Int,
        headers: [HeaderField],
        requestTime: Date,
        responseTime: Date,
        varyRequestHeaders: [HeaderField] = []
    ) {
        self.url = url
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyRequestHeaders = varyRequestHeaders
    }
}

import LarderHTTP

/// Why an upstream transfer failed.
public struct UpstreamError: Error, Sendable, CustomStringConvertible {
    /// The class of failure, which decides how callers react (serve stale, retry, back off a host).
    public enum Kind: Hashable, Sendable {
        /// The host name could not be resolved.
        case dnsFailure
        /// No connection could be made: refused, or the host or network is unreachable.
        case connectionRefused
        /// Connecting (TCP and TLS handshake) took longer than the connect timeout.
        case connectTimeout
        /// The transfer went idle for longer than the idle timeout, or exceeded its total timeout.
        case timeout
        /// TLS failed: handshake, certificate verification, or the TLS configuration.
        case tls
        /// The connection broke before a response head arrived.
        case connectionReset
        /// The body ended before it was complete (short of `Content-Length`, or the connection broke mid-body).
        case truncatedBody
        /// The transfer was cancelled: the client shut down or the body's consumer went away.
        case cancelled
        /// The request could not be sent as given: a bad URL, method or header, or a request body that did not
        /// match its declared length.
        case invalidRequest
        /// The request body stream threw, so the request could not be sent completely.
        case requestBodyFailed
        /// The host is an address the request may not reach (``UpstreamRequest/reach``: the box's
        /// own loopback, for a client on another machine): refused before anything was sent. It
        /// says nothing of the origin's health, and no stored copy stands in for it.
        case forbiddenAddress
        /// Any other failure, with the client's own error code (libcurl's for `CurlUpstream`).
        case other(Int)
    }

    /// The class of failure.
    public var kind: Kind

    /// A human-readable explanation, including libcurl's own error text where there is one.
    public var message: String

    /// The URL of the request that failed.
    public var url: String

    /// Whether the failure happened while connecting, before any request bytes could reach the origin.
    ///
    /// A connect failure says the host is unreachable, which is what a caller backing off a dead host counts.
    public var isConnectFailure: Bool

    /// Creates an error.
    ///
    /// - Parameter isConnectFailure: `nil` derives it from `kind`: true for ``Kind/dnsFailure``,
    ///   ``Kind/connectionRefused``, ``Kind/connectTimeout`` and ``Kind/tls``.
    public init(kind: Kind, message: String, url: String, isConnectFailure: Bool? = nil) {
        self.kind = kind
        self.message = message
        self.url = url
        self.isConnectFailure = isConnectFailure ?? Self.isConnectPhase(kind)
    }

    /// Whether `kind` can only happen while connecting (TLS counts, as its failures are nearly all handshakes).
    static func isConnectPhase(_ kind: Kind) -> Bool {
        switch kind {
        case .dnsFailure, .connectionRefused, .connectTimeout, .tls:
            return true
        case .timeout, .connectionReset, .truncatedBody, .cancelled, .invalidRequest, .requestBodyFailed, .forbiddenAddress, .other:
            return false
        }
    }

    /// The kind, the message and the URL, e.g. `UpstreamError(dnsFailure): could not resolve host ... [http://x/]`.
    public var description: String {
        "UpstreamError(\(self.kind)): \(self.message) [\(self.url)]"
    }
}

extension UpstreamError {
    /// A request refused because its host resolves to `address` at `port`, an address of the box's
    /// own its ``UpstreamRequest/reach`` does not allow (``Kind/forbiddenAddress``).
    package static func forbiddenAddress(_ address: String, port: Int, method: String? = nil, url: String) -> UpstreamError {
        UpstreamError(
            kind: .forbiddenAddress,
            message: (method.map { "\($0) " } ?? "") + "refused: the host resolves to " + UpstreamReach.refusal(host: address, port: port),
            url: url)
    }
}

extension UpstreamError {
    /// A transfer of `method` that failed with `summary`, written as every client writes it: the
    /// parent it went through, how much of a body cut short had arrived, then the client's own
    /// `detail` (curl's error text, NIO's error).
    package init(
        kind: Kind, summary: String, method: String, url: String, parent: ProxyEndpoint?, bodyBytesDelivered: Int64,
        declaredBodyLength: Int64?, detail: String, isConnectFailure: Bool?
    ) {
        var message = "\(method) failed: \(summary)"
        if let parent {
            message += " (through the upstream proxy \(parent))"
        }
        if kind == .truncatedBody {
            let declared = declaredBodyLength.map { " of \($0) declared" } ?? ""
            message += " after \(bodyBytesDelivered)\(declared) body bytes"
        }
        message += " (\(detail))"
        self.init(kind: kind, message: message, url: url, isConnectFailure: isConnectFailure)
    }
}

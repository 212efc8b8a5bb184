import Foundation

/// A parent proxy that upstream requests go through: `http://` or `https://` (TLS to the proxy),
/// host and port, and optional credentials sent as `Proxy-Authorization: Basic`.
///
/// Its ``description`` never shows the credentials, so it may be logged and printed.
public struct ProxyEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`: how the connection to the proxy itself is made.
    public var scheme: String
    /// The proxy's host name or address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The user name, percent-decoded; nil without credentials.
    public var username: String?
    /// The password, percent-decoded; nil without one.
    public var password: String?

    /// The port a proxy URL without one means: 1080, as curl does (`curl -x`, `http_proxy`), so a
    /// value works the same for Larder as for curl on the same machine.
    public static let defaultPort = 1080

    /// Parses a proxy URL such as `http://squid.lan:3128`, `https://user:secret@proxy.example:8443`,
    /// or `squid.lan:3128` (no scheme means `http`, as in curl).
    ///
    /// Rejected, with a reason that never repeats the credentials: a scheme other than http or
    /// https (SOCKS is not supported), no host, a port that is not 1...65535, a path, query or fragment.
    public init(parsing text: String) throws(ProxyEndpointError) {
        let trimmed = text.trimmingUnicodeWhitespace()
        guard !trimmed.isEmpty else {
            throw ProxyEndpointError(problem: "it is empty; give a URL such as http://proxy.example:3128")
        }
        var rest = Substring(trimmed)
        var scheme = "http"
        if let separator = rest.range(of: "://") {
            scheme = rest[..<separator.lowerBound].lowercased()
            rest = rest[separator.upperBound...]
        }
        guard scheme == "http" || scheme == "https" else {
            throw ProxyEndpointError(
                problem: "the scheme \(scheme.debugDescription) is not supported; a parent proxy is http:// or https://")
        }
        // Drop one trailing "/" (as in "http://proxy:3128/"); any other path is a mistake.
        if rest.hasSuffix("/") {
            rest = rest.dropLast()
        }
        if rest.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            throw ProxyEndpointError(problem: "it has a path, query or fragment; give only scheme, host and port")
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            username = PercentEncoding.decoded(Array(parts[0].utf8))
            password = parts.count == 2 ? PercentEncoding.decoded(Array(parts[1].utf8)) : nil
        }
        let url: HTTPURL
        do {
            url = try HTTPURL(parsing: "\(scheme)://\(rest)/")
        } catch {
            // The reason only: the input may hold credentials.
            throw ProxyEndpointError(problem: error.reason)
        }
        self.scheme = scheme
        self.host = url.host
        self.port = url.port ?? Self.defaultPort
        self.username = username
        self.password = password
    }

    /// Creates an endpoint from its parts.
    public init(scheme: String, host: String, port: Int, username: String? = nil, password: String? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// `scheme://host:port`, an IPv6 host in brackets; the credentials are never part of it.
    public var url: String {
        "\(self.scheme)://\(self.authority)"
    }

    /// `host:port` (an IPv6 host in brackets), as in a `CONNECT` request target.
    public var authority: String {
        "\(HTTPURL.bracketed(host: self.host)):\(self.port)"
    }

    /// ``url``, with `***@` in front of the host when the endpoint has credentials.
    public var description: String {
        self.username == nil ? self.url : "\(self.scheme)://***@\(self.authority)"
    }
}

/// Why a proxy URL was rejected; it never repeats the URL, which may hold a password.
public struct ProxyEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var problem: String

    /// Creates an error.
    public init(problem: String) {
        self.problem = problem
    }

    /// The problem.
    public var description: String {
        self.problem
    }
}

import LarderHTTP

/// Where the requests on a `CONNECT` tunnel served as HTTP go: origin-form targets are
/// `scheme://host:port` URLs (`https` inside intercepted TLS, `http` for plain HTTP). Only
/// `https` ones pass through TLS. A class: the connection hands it to every immediate hit, and a
/// reference is one retain where a struct of three strings is three.
public final class TunnelOrigin: Sendable {
    let scheme: String
    let host: String
    let port: Int
    /// `scheme://authority`, without the port when it is the scheme's default: an origin-form
    /// target inside the tunnel is this followed by the target.
    let base: String

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
        let bracketed = HTTPURL.bracketed(host: host)
        self.base = "\(scheme)://\(port == (scheme == "https" ? 443 : 80) ? bracketed : "\(bracketed):\(port)")"
    }

    /// The authority of ``base``, as requests inside the tunnel are told about it.
    var authority: Substring {
        self.base.dropFirst(self.scheme.count + 3)
    }
}

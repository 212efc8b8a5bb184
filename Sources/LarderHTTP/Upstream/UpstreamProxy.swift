/// Which upstream requests go through a parent proxy, and which one: the resolved setting of
/// `--upstream-proxy`, the config file's `upstreamProxy` and the proxy environment variables.
///
/// Resolution follows curl's conventions, so Larder and curl on one machine agree: `http_proxy`
/// (or `HTTP_PROXY`) for `http://` origins, `https_proxy` (or `HTTPS_PROXY`) for `https://` ones,
/// `all_proxy` (or `ALL_PROXY`) for either when its own is unset, the lowercase name first, and
/// `no_proxy` (or `NO_PROXY`) for the hosts reached directly. An empty variable is unset.
/// Larder is never a CGI program, so the uppercase `HTTP_PROXY` (which curl ignores for that
/// reason) is read too.
public struct UpstreamProxy: Sendable, Hashable {
    /// The parent for `http://` origins (plain HTTP, sent to it in absolute form); nil: direct.
    public var http: ProxyEndpoint?
    /// The parent for `https://` origins, blind tunnels and `wss://` (reached with `CONNECT`); nil: direct.
    public var https: ProxyEndpoint?
    /// The hosts reached directly whatever the above say.
    public var noProxy: NoProxyList

    /// Every request goes straight to its origin.
    public static let direct = UpstreamProxy(http: nil, https: nil, noProxy: .none)

    /// Creates a setting from its parts.
    public init(http: ProxyEndpoint?, https: ProxyEndpoint?, noProxy: NoProxyList) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// What `--upstream-proxy` or the config file's `upstreamProxy` asks for.
    public enum Choice: Sendable, Hashable {
        /// `none`: no parent, whatever the environment says.
        case direct
        /// One parent for every origin.
        case through(ProxyEndpoint)

        /// The word that means ``direct``.
        public static let noneKeyword = "none"

        /// Parses `none` or a proxy URL (see ``ProxyEndpoint/init(parsing:)``).
        public init(parsing text: String) throws(ProxyEndpointError) {
            if text.trimmingUnicodeWhitespace().lowercased() == Self.noneKeyword {
                self = .direct
            } else {
                self = .through(try ProxyEndpoint(parsing: text))
            }
        }
    }

    /// The setting for `choice` (nil: none was given) in `environment`.
    ///
    /// A choice wins over the environment's proxy variables; `no_proxy` applies to a chosen parent
    /// too, as it does to `curl -x`, and not to ``Choice/direct``.
    ///
    /// - Throws: ``UpstreamProxyError`` naming the variable whose value is not a proxy URL.
    public static func resolve(choice: Choice?, environment: [String: String]) throws(UpstreamProxyError) -> UpstreamProxy {
        let noProxy = NoProxyList(parsing: self.variable(["no_proxy", "NO_PROXY"], in: environment)?.value ?? "")
        switch choice {
        case .direct:
            return .direct
        case .through(let endpoint):
            return UpstreamProxy(http: endpoint, https: endpoint, noProxy: noProxy)
        case nil:
            let all = ["all_proxy", "ALL_PROXY"]
            return UpstreamProxy(
                http: try self.endpoint(["http_proxy", "HTTP_PROXY"] + all, in: environment),
                https: try self.endpoint(["https_proxy", "HTTPS_PROXY"] + all, in: environment),
                noProxy: noProxy
            )
        }
    }

    /// Whether nothing goes through a parent.
    public var isDirect: Bool {
        self.http == nil && self.https == nil
    }

    /// The parent a request to `scheme://host` goes through, nil when it goes direct. `https`
    /// covers every connection made with `CONNECT` (blind tunnels and `wss://`); `ws` is `http`.
    public func endpoint(scheme: String, host: String) -> ProxyEndpoint? {
        let parent = scheme == "https" || scheme == "wss" ? self.https : self.http
        guard let parent, !self.noProxy.matches(host: host) else { return nil }
        return parent
    }

    /// Whether an answer with `status` that came through a parent is the parent's own failure to
    /// reach the origin (a gateway error) rather than the origin's answer: it then counts as the
    /// origin being unreachable, so offline fallbacks apply, instead of being relayed.
    public static func isParentFailure(status: Int) -> Bool {
        status == 502 || status == 503 || status == 504
    }

    private static func variable(_ names: [String], in environment: [String: String]) -> (name: String, value: String)? {
        for name in names {
            if let value = environment[name], !value.trimmingUnicodeWhitespace().isEmpty {
                return (name, value)
            }
        }
        return nil
    }

    private static func endpoint(_ names: [String], in environment: [String: String]) throws(UpstreamProxyError) -> ProxyEndpoint? {
        guard let found = self.variable(names, in: environment) else { return nil }
        do {
            return try ProxyEndpoint(parsing: found.value)
        } catch {
            throw UpstreamProxyError(source: found.name, problem: error.problem)
        }
    }
}

/// A proxy setting that cannot be used: `source` names where it came from (an option, a config
/// key, an environment variable); the value is not repeated, as it may hold a password.
public struct UpstreamProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the setting came from, e.g. `--upstream-proxy` or `HTTPS_PROXY`.
    public var source: String
    /// What is wrong with it.
    public var problem: String

    /// Creates an error.
    public init(source: String, problem: String) {
        self.source = source
        self.problem = problem
    }

    /// `source: problem`.
    public var description: String {
        "\(self.source): \(self.problem)"
    }
}

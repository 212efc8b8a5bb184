import LarderNIOUpstream
import LarderPrecache
import LarderUpstream
import Logging
import ServiceLifecycle

#if Curl
    import LarderCurl
#endif

extension UpstreamClient {
    /// Which HTTP client fetches from origins: `larder serve --upstream`, `larder precache
    /// --upstream`, ``Larder/Configuration/upstreamClient``.
    public enum Kind: String, Sendable, CaseIterable, CustomStringConvertible {
        /// libcurl (``CurlUpstream``): the default where it is linked, with the `Curl` trait.
        case curl
        /// AsyncHTTPClient on SwiftNIO (``NIOUpstream``): in every build, the default without libcurl.
        case nio

        /// The clients this build has: both with the `Curl` trait, else `nio` alone.
        public static var linked: [Kind] {
            #if Curl
                [.curl, .nio]
            #else
                [.nio]
            #endif
        }

        /// The default: curl where linked, else nio.
        public static var preferred: Kind {
            Self.linked[0]
        }

        /// The client named `name` (`curl` or `nio`); `source` names where the name came from
        /// (`--upstream`, `LARDER_UPSTREAM`) in the error.
        ///
        /// - Throws: ``UpstreamConfigurationError`` for a name that is neither, or for `curl` in a
        ///   build without libcurl.
        public init(named name: String, source: String) throws(UpstreamConfigurationError) {
            guard let kind = Kind(rawValue: name.lowercased()) else {
                throw UpstreamConfigurationError(message: "\(source) \(name): not an upstream client; use curl or nio")
            }
            guard Self.linked.contains(kind) else {
                throw UpstreamConfigurationError(
                    message: "\(source) \(name): this build has no libcurl (it was built without the Curl trait); use nio")
            }
            self = kind
        }

        /// The client named by `LARDER_UPSTREAM` in `environment` when set and not empty, else
        /// ``preferred``.
        ///
        /// - Throws: ``UpstreamConfigurationError`` when the variable names no client of this build.
        public static func fromEnvironment(_ environment: [String: String]) throws(UpstreamConfigurationError) -> Kind {
            guard let name = environment["LARDER_UPSTREAM"], !name.isEmpty else { return Self.preferred }
            return try Kind(named: name, source: "LARDER_UPSTREAM")
        }

        /// What the status pages call it: `curl (libcurl)` or `nio (AsyncHTTPClient)`.
        public var description: String {
            switch self {
            case .curl: "curl (libcurl)"
            case .nio: "nio (AsyncHTTPClient)"
            }
        }
    }

    /// One client of `kind` alone, with what shuts it down: for a command that fetches, then exits.
    ///
    /// - Throws: ``UpstreamConfigurationError`` as ``make(_:configuration:logger:)`` does.
    public static func makeUpstream(_ kind: Kind, configuration: UpstreamConfiguration, logger: Logger) throws -> (
        upstream: any Upstream, shutdown: @Sendable () async -> Void
    ) {
        let made = try self.client(kind, configuration: configuration, logger: logger)
        return (made.upstream, made.shutdown)
    }

    /// The client `kind` with `configuration`, a second one for precache jobs whose threads run at
    /// the lowest CPU priority (``BackgroundExecutor``), and a connector trusting what they trust.
    ///
    /// - Throws: ``UpstreamConfigurationError`` when the configuration is unusable, e.g. an
    ///   additional CA file that cannot be read, or `kind` is not linked.
    public static func make(_ kind: Kind, configuration: UpstreamConfiguration, logger: Logger) throws -> UpstreamClient {
        var background = configuration
        background.threadSetUp = BackgroundExecutor.lowerCurrentThreadPriority
        let connector = try UpstreamConnector(trust: configuration.trust, proxy: configuration.proxy, logger: logger)
        let proxy = try self.client(kind, configuration: configuration, logger: logger)
        let precache = try self.client(kind, configuration: background, logger: logger)
        return UpstreamClient(
            kind: kind, upstream: proxy.upstream, connector: connector, service: proxy.service,
            precache: (precache.upstream, precache.service))
    }

    /// One client of `kind`: the service that shuts it down with the rest, and the same as a call.
    private static func client(_ kind: Kind, configuration: UpstreamConfiguration, logger: Logger) throws -> (
        upstream: any Upstream, service: any Service, shutdown: @Sendable () async -> Void
    ) {
        switch kind {
        case .curl:
            #if Curl
                let upstream = try CurlUpstream(configuration: configuration, logger: logger)
                return (upstream, CurlUpstreamService(upstream: upstream), { upstream.shutdown() })
            #else
                throw UpstreamConfigurationError(message: "curl: this build has no libcurl (it was built without the Curl trait)")
            #endif
        case .nio:
            let upstream = try NIOUpstream(configuration: configuration, logger: logger)
            return (upstream, NIOUpstreamService(upstream: upstream), { await upstream.shutdown() })
        }
    }
}

import ArgumentParser
import Foundation
import LarderEmbedded
import LarderHTTP
import LarderProxy
import LarderStore
import LarderUpstream
import Logging

/// `larder serve`: runs the proxy until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the caching proxy.",
        discussion: """
            Examples:
              larder serve
              curl -x http://127.0.0.1:8080 http://example.com/
              larder serve --offline          # never contact the network
              larder serve --host 0.0.0.0 --allow 192.168.1.0/24
              larder serve --tunnel '*.bank.example'   # never intercept these hosts
              larder serve --config larder.json        # routes, query parameters, tunnel, max size

            HTTPS: Larder answers CONNECT with certificates signed by its local CA \
            (`larder ca path`); trust that CA once in the browser or system.
            """
    )

    @Option(help: "The address to listen on. Anything but loopback needs --allow.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free port).")
    var port = 8080

    @OptionGroup var cacheDirectory: CacheDirectoryOption

    @OptionGroup var config: ConfigFileOption

    @Flag(help: "Never contact upstream: answer from the cache, or 504 for what is not cached.")
    var offline = false

    @Option(
        name: .customLong("allow"),
        help: ArgumentHelp("Also serve clients in this network (CIDR, repeatable). Loopback is always served.", valueName: "cidr")
    )
    var allow: [String] = []

    @Option(
        name: .customLong("connect-ports"),
        help: ArgumentHelp(
            "Ports a blind CONNECT tunnel may reach (TLS not intercepted, or neither TLS nor HTTP), comma-separated, or * for any.",
            valueName: "ports")
    )
    var connectPorts = "443"

    @OptionGroup var upstreamCA: UpstreamCAOption

    @OptionGroup var upstreamProxy: UpstreamProxyOption

    @OptionGroup var upstreamClient: UpstreamClientOption

    @Flag(name: .customLong("no-intercept"), help: "Tunnel every HTTPS connection untouched (nothing HTTPS is cached).")
    var noIntercept = false

    @Option(
        name: .customLong("tunnel"),
        help: ArgumentHelp(
            "Tunnel HTTPS to hosts matching this glob untouched (repeatable, added to the config file's tunnel), e.g. '*.apple.com'.",
            valueName: "glob"
        )
    )
    var tunnel: [String] = []

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp(
            "Bound the cache: runtime entries are evicted least recently used first (precached ones stay). E.g. 512MB, 2GiB (default: the config file's maxSize, else 2GiB).",
            valueName: "size"
        )
    )
    var maxSize: String?

    @Option(
        name: .customLong("shutdown-grace"),
        help: ArgumentHelp(
            "On SIGINT/SIGTERM, how long in-flight responses may take to finish before they are cut (seconds).",
            valueName: "seconds"
        )
    )
    var shutdownGrace = 10

    @Option(
        name: .customLong("header-timeout"),
        help: ArgumentHelp(
            "How long a request head may take to arrive; slower clients get 408 and are closed (seconds).", valueName: "seconds")
    )
    var headerTimeout = 30

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("How long a kept-alive client connection may wait for its next request (seconds).", valueName: "seconds")
    )
    var idleTimeout = 60

    @Option(
        name: .customLong("tunnel-idle-timeout"),
        help: ArgumentHelp("How long a tunnel or WebSocket may pass no byte before it closes (seconds).", valueName: "seconds")
    )
    var tunnelIdleTimeout = 600

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Client connections open at once; at the limit the longest-idle one closes to make room, and a new one is refused with 503 when none is idle (default: from the file-descriptor limit).",
            valueName: "count"
        )
    )
    var maxConnections: Int?

    @Option(
        name: .customLong("max-connections-per-client"),
        help: ArgumentHelp("Client connections one address may hold at once.", valueName: "count")
    )
    var maxConnectionsPerClient = 256

    @Option(
        name: .customLong("event-loops"),
        help: ArgumentHelp(
            "Threads that answer clients (default: half the cores, at least 1; the clients need cores too).", valueName: "count")
    )
    var eventLoops: Int?

    func validate() throws {
        guard (0...65_535).contains(self.port) else {
            throw ValidationError("--port \(self.port) is not a port number (0-65535).")
        }
        try CommandSupport.validateLogLevel(self.logLevel)
        _ = try self.allowedNetworks()
        _ = try self.allowedConnectPorts()
        _ = try self.maximumSize()
        guard (0...3600).contains(self.shutdownGrace) else {
            throw ValidationError("--shutdown-grace \(self.shutdownGrace) is not between 0 and 3600 seconds.")
        }
        for (name, value) in [
            ("--header-timeout", self.headerTimeout), ("--idle-timeout", self.idleTimeout),
            ("--tunnel-idle-timeout", self.tunnelIdleTimeout),
        ] {
            guard (1...86_400).contains(value) else {
                throw ValidationError("\(name) \(value) is not between 1 and 86400 seconds.")
            }
        }
        if let maxConnections = self.maxConnections, maxConnections < 1 {
            throw ValidationError("--max-connections \(maxConnections) must be at least 1.")
        }
        if let eventLoops = self.eventLoops, !(1...ServingEventLoops.maximumCount).contains(eventLoops) {
            throw ValidationError("--event-loops \(eventLoops) is not between 1 and \(ServingEventLoops.maximumCount).")
        }
        guard self.maxConnectionsPerClient >= 1 else {
            throw ValidationError("--max-connections-per-client \(self.maxConnectionsPerClient) must be at least 1.")
        }
        if !CIDR.isLoopback(host: self.host) && self.allow.isEmpty {
            throw ValidationError(
                "--host \(self.host) listens beyond this machine; add --allow CIDR for the clients that may use the proxy (loopback is always allowed)."
            )
        }
    }

    func run() async throws {
        let configFile = try self.config.load()
        CommandSupport.bootstrapLogging(self.logLevel)
        let logger = Logger(label: "larder")
        let directory = self.cacheDirectory.resolved()

        var configuration = ProxyConfiguration()
        configFile.apply(to: &configuration)
        configuration.host = self.host
        configuration.port = self.port
        configuration.offline = self.offline
        configuration.allowList = ClientAllowList(networks: try self.allowedNetworks())
        configuration.routeRules.connectPorts = try self.allowedConnectPorts()
        configuration.maxSize = try self.maximumSize() ?? configuration.maxSize ?? Larder.defaultMaximumSize
        configuration.clientLimits.headerTimeout = .seconds(self.headerTimeout)
        configuration.clientLimits.idleTimeout = .seconds(self.idleTimeout)
        configuration.clientLimits.tunnelIdleTimeout = .seconds(self.tunnelIdleTimeout)
        configuration.clientLimits.maximumConnectionsPerClient = self.maxConnectionsPerClient
        // Every connection is a descriptor: the common soft limit of 1024 would lock clients out
        // long before the machine runs out; the connection limit stays below what is raised.
        let descriptors = DescriptorLimit.raiseToHardLimit()
        let affordable = ClientLimits.defaultMaximumConnections(descriptorLimit: descriptors)
        if let asked = self.maxConnections, asked > affordable {
            // Past the descriptor limit, accepting fails (EMFILE) and nobody new gets in.
            logger.warning(
                "--max-connections lowered to what the file-descriptor limit allows",
                metadata: ["asked": "\(asked)", "limit": "\(affordable)", "descriptors": "\(descriptors)"]
            )
        }
        configuration.clientLimits.maximumConnections = min(self.maxConnections ?? affordable, affordable)
        var larderConfiguration = Larder.Configuration(cacheDirectory: directory)
        larderConfiguration.proxy = configuration
        configFile.apply(to: &larderConfiguration.precache)
        let trust = self.upstreamCA.trust
        let parent = try self.parentProxy(configured: configFile.upstreamProxy, logger: logger)
        larderConfiguration.upstreamClient = try self.upstreamClient.resolve()
        larderConfiguration.upstreamConfiguration = UpstreamConfiguration(trust: trust, proxy: parent)
        larderConfiguration.interceptsHTTPS = !self.noIntercept
        larderConfiguration.tunnelHosts = configFile.tunnelHosts + self.tunnel
        larderConfiguration.eventLoops = self.eventLoops
        larderConfiguration.shutdownGrace = .seconds(self.shutdownGrace)
        larderConfiguration.stopsOnTerminationSignals = true
        larderConfiguration.logger = logger

        let larder = Larder(configuration: larderConfiguration)
        do {
            try await larder.start()
            let status = try await larder.status()
            let mode = self.offline ? " in offline mode" : ""
            let banner = """
                Larder listening on \(status.proxyURL)\(mode) (cache: \(directory))
                Try: curl -x \(status.proxyURL) http://example.com/

                """
            FileHandle.standardOutput.write(Data(banner.utf8))
            try await larder.wait()
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// The parent proxy setting, never this proxy itself: a parent at `--host`/`--port` (or on
    /// loopback at `--port`) would send every request back here. From the environment (a shell
    /// that points `http_proxy` at Larder for other programs) that scheme goes direct, with a
    /// warning; given as an option or in the config file, it is a usage error.
    private func parentProxy(configured: UpstreamProxy.Choice?, logger: Logger) throws -> UpstreamProxy {
        var proxy = try self.upstreamProxy.resolve(configured: configured)
        func isSelf(_ endpoint: ProxyEndpoint?) -> Bool {
            guard let endpoint, self.port != 0, endpoint.port == self.port else { return false }
            return endpoint.host == self.host || CIDR.isLoopback(host: endpoint.host)
                || (CIDR.isLoopback(host: self.host) && endpoint.host == "localhost")
        }
        for endpoint in [proxy.http, proxy.https].compactMap({ $0 }) where isSelf(endpoint) {
            if self.upstreamProxy.text != nil || configured != nil {
                throw ValidationError("--upstream-proxy \(endpoint) is this proxy's own address; requests would come back to it.")
            }
            logger.warning(
                "ignoring the proxy environment variable that points at this proxy itself; those requests go direct",
                metadata: ["parent": "\(endpoint)"])
        }
        if isSelf(proxy.http) { proxy.http = nil }
        if isSelf(proxy.https) { proxy.https = nil }
        UpstreamProxyOption.log(proxy, logger: logger)
        return proxy
    }

    private func allowedNetworks() throws -> [CIDR] {
        try self.allow.map { text in
            do {
                return try CIDR(parsing: text)
            } catch {
                throw ValidationError("--allow \(error)")
            }
        }
    }

    /// `--max-size` in bytes, or nil when it is not given.
    private func maximumSize() throws -> Int64? {
        guard let maxSize = self.maxSize else {
            return nil
        }
        do {
            return try ByteSize(parsing: maxSize).bytes
        } catch {
            throw ValidationError("--max-size \(error)")
        }
    }

    private func allowedConnectPorts() throws -> Set<Int>? {
        if self.connectPorts.trimmingCharacters(in: .whitespaces) == "*" { return nil }
        var ports = Set<Int>()
        for item in self.connectPorts.split(separator: ",") {
            guard let port = Int(item.trimmingCharacters(in: .whitespaces)), (1...65_535).contains(port) else {
                throw ValidationError("--connect-ports '\(self.connectPorts)': '\(item)' is not a port number (or use *).")
            }
            ports.insert(port)
        }
        guard !ports.isEmpty else {
            throw ValidationError("--connect-ports is empty; give ports like 443,8443 or *.")
        }
        return ports
    }
}

/// A failure that ends a command with status 1 and a one-line message.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

import Foundation
import LarderHTTP
import NIOSSL
import Synchronization
import X509

/// The certificates and TLS server contexts Larder uses to intercept HTTPS, one per host, issued on demand by a
/// ``CertificateAuthority`` and cached (least recently used first out).
///
/// Issuing is synchronous and takes one ECDSA signature (all leaves share the CA's leaf key); callers that must
/// not block an event loop even that long issue the first certificate for a host elsewhere, e.g. by calling
/// ``serverContext(for:)`` before handing the connection to the event loop.
public final class InterceptionCertificates: Sendable {
    /// The CA that signs the leaves.
    public let authority: CertificateAuthority

    private let cache: Mutex<LeastRecentlyUsedCache<String, HostCredentials>>
    private let now: @Sendable () -> Date

    /// A cached leaf is replaced once it would expire within this interval.
    static let renewalMargin: TimeInterval = 86_400

    /// A leaf certificate with what NIOSSL needs to serve it.
    struct HostCredentials: Sendable {
        let leaf: LeafCertificate
        let chain: [NIOSSLCertificate]
        let context: NIOSSLContext
    }

    /// Creates an empty cache of leaves and contexts signed by `authority`.
    ///
    /// - Parameters:
    ///   - authority: The CA that signs the leaves.
    ///   - capacity: The most hosts kept; the least recently used host is forgotten beyond that.
    ///   - now: The clock leaves are dated and renewed by (the proxy's, ``ProxyConfiguration/now``).
    public init(authority: CertificateAuthority, capacity: Int = 1000, now: @escaping @Sendable () -> Date) {
        self.authority = authority
        self.now = now
        self.cache = Mutex(LeastRecentlyUsedCache(capacity: capacity))
    }

    /// The leaf certificate for `host`: the cached one, or a new one.
    ///
    /// - Throws: ``CertificateAuthorityError`` for an invalid host.
    public func leaf(for host: String) throws -> LeafCertificate {
        try self.credentials(for: InterceptionHost(host)).leaf
    }

    /// A TLS server context presenting the leaf for `host` (then the CA), cached per host.
    ///
    /// It accepts TLS 1.2 and later, offers only the `http/1.1` application protocol, and when the client's
    /// server name indication names another valid host, presents that host's leaf instead (see
    /// ``makeServerHandler(connectHost:)``).
    ///
    /// - Parameter host: The CONNECT host: a DNS name or an IPv4 or IPv6 literal (brackets allowed).
    /// - Throws: ``CertificateAuthorityError`` for an invalid host, or when the TLS library rejects the leaf.
    public func serverContext(for host: String) throws -> NIOSSLContext {
        try self.credentials(for: InterceptionHost(host)).context
    }

    /// A TLS server handler for a connection tunnelled by `CONNECT connectHost`.
    ///
    /// The leaf presented is for the name the client sends in its server name indication when that is a valid
    /// host, else for `connectHost` (a client that CONNECTs to an IP address but asks for a name gets a
    /// certificate for the name; one that sends no name, or an invalid one, gets `connectHost`'s). A leaf for an
    /// uncached server name is issued synchronously on the event loop during the handshake.
    ///
    /// - Throws: ``CertificateAuthorityError`` for an invalid `connectHost`.
    public func makeServerHandler(connectHost: String) throws -> NIOSSLServerHandler {
        NIOSSLServerHandler(context: try self.serverContext(for: connectHost))
    }

    /// The number of hosts cached.
    var cachedHostCount: Int {
        self.cache.withLock { $0.count }
    }

    private func credentials(for host: InterceptionHost) throws(CertificateAuthorityError) -> HostCredentials {
        let now = self.now()
        let usableUntil = now + Self.renewalMargin
        if let cached = self.cache.withLock({ $0.value(for: host.name) }),
            cached.leaf.certificate.notValidAfter > usableUntil
        {
            return cached
        }
        // Issued outside the lock so that other hosts are not held up; a host issued twice at once keeps the first.
        let fresh = try self.makeCredentials(for: host, now: now)
        return self.cache.withLock { cache in
            if let cached = cache.value(for: host.name), cached.leaf.certificate.notValidAfter > usableUntil {
                return cached
            }
            cache.insert(fresh, for: host.name)
            return fresh
        }
    }

    private func makeCredentials(
        for host: InterceptionHost,
        now: Date
    ) throws(CertificateAuthorityError) -> HostCredentials {
        let leaf = try self.authority.issueLeaf(for: host, now: now)
        do {
            let chain = try leaf.chainDER().map { try NIOSSLCertificate(bytes: $0, format: .der) }
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) },
                privateKey: .privateKey(self.authority.leafNIOSSLPrivateKey)
            )
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["http/1.1"]
            configuration.sslContextCallback = { [weak self] extensionValues, promise in
                promise.succeed(
                    self?.override(forServerName: extensionValues.serverHostname, connectHost: host) ?? .noChanges
                )
            }
            return HostCredentials(leaf: leaf, chain: chain, context: try NIOSSLContext(configuration: configuration))
        } catch {
            throw CertificateAuthorityError(
                .certificateGeneration,
                subject: host.name,
                "The TLS library rejected the certificate for \(host.name): \(error)."
            )
        }
    }

    /// The certificate change for a handshake whose server name indication is `serverName`: none when it is
    /// absent, invalid or the CONNECT host itself, else the leaf for `serverName`.
    private func override(
        forServerName serverName: String?,
        connectHost: InterceptionHost
    ) -> NIOSSLContextConfigurationOverride {
        guard let serverName, let requested = try? InterceptionHost(serverName), requested != connectHost,
            let credentials = try? self.credentials(for: requested)
        else {
            return .noChanges
        }
        var override = NIOSSLContextConfigurationOverride()
        override.certificateChain = credentials.chain.map { .certificate($0) }
        override.privateKey = .privateKey(self.authority.leafNIOSSLPrivateKey)
        return override
    }
}

import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import SwiftASN1
import Testing
import X509

@testable import LarderProxy

/// Real TLS handshakes over loopback between a NIO server using ``InterceptionCertificates`` and a NIOSSL client.
@Suite("Interception TLS handshakes")
struct TLSHandshakeTests {
    /// What a client saw of a completed handshake.
    struct Handshake {
        let peerCertificate: Certificate
        let negotiatedProtocol: String?
        let tlsVersion: TLSVersion?
    }

    /// Completes `promise` when the TLS handshake completes, fails it when the channel errors or closes first.
    final class HandshakeObserver: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        private let promise: EventLoopPromise<String?>

        init(promise: EventLoopPromise<String?>) {
            self.promise = promise
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted(let negotiatedProtocol) = event as? TLSUserEvent {
                self.promise.succeed(negotiatedProtocol)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            self.promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.promise.fail(ChannelError.ioOnClosedChannel)
            context.fireChannelInactive()
        }
    }

    /// A loopback TLS server whose every connection is intercepted as `CONNECT connectHost`.
    @discardableResult
    private func withServer<T>(
        connectHost: String,
        _ body: (InterceptionCertificates, SocketAddress, EventLoopGroup) async throws -> T
    ) async throws -> T {
        let directory = try TLSTestDirectory()
        let certificates = InterceptionCertificates(
            authority: try CertificateAuthority.loadOrCreate(directory: directory.path, now: Date()), now: { Date() }
        )
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        certificates.makeServerHandler(connectHost: connectHost)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        do {
            let result = try await body(certificates, try #require(server.localAddress), group)
            try await server.close()
            try await group.shutdownGracefully()
            return result
        } catch {
            try? await server.close()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Connects with `configuration`, sending `serverName` as SNI, and returns what the handshake produced.
    private func handshake(
        to address: SocketAddress,
        group: EventLoopGroup,
        configuration: TLSConfiguration,
        serverName: String?
    ) async throws -> Handshake {
        let context = try NIOSSLContext(configuration: configuration)
        let completed = group.next().makePromise(of: String?.self)
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: serverName)
                    )
                    try channel.pipeline.syncOperations.addHandler(HandshakeObserver(promise: completed))
                }
            }
            .connect(to: address)
            .get()
        do {
            let negotiatedProtocol = try await completed.futureResult.get()
            let peer = try #require(try await channel.nioSSL_peerCertificate().get())
            let version = try await channel.nioSSL_tlsVersion().get()
            try? await channel.close()
            return Handshake(
                peerCertificate: try Certificate(derEncoded: peer.toDERBytes()),
                negotiatedProtocol: negotiatedProtocol,
                tlsVersion: version
            )
        } catch {
            try? await channel.close()
            throw error
        }
    }

    private func trustingConfiguration(_ certificates: InterceptionCertificates) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([
            try NIOSSLCertificate(bytes: Array(certificates.authority.pem().utf8), format: .pem)
        ])
        configuration.applicationProtocols = ["h2", "http/1.1"]
        return configuration
    }

    private func alternativeNames(_ certificate: Certificate) throws -> [GeneralName] {
        Array(try #require(try certificate.extensions.subjectAlternativeNames))
    }

    @Test("a client trusting only the CA completes the handshake for the CONNECT host, over TLS 1.2+ with http/1.1")
    func connectHost() async throws {
        try await self.withServer(connectHost: "games.example") { certificates, address, group in
            let handshake = try await self.handshake(
                to: address,
                group: group,
                configuration: try self.trustingConfiguration(certificates),
                serverName: "games.example"
            )
            #expect(try self.alternativeNames(handshake.peerCertificate) == [.dnsName("games.example")])
            #expect(handshake.negotiatedProtocol == "http/1.1")
            #expect(handshake.tlsVersion == .tlsv13)
            #expect(handshake.peerCertificate == (try certificates.leaf(for: "games.example")).certificate)
        }
    }

    @Test("an SNI name other than the CONNECT host gets a certificate for that name")
    func serverNameSelectsCertificate() async throws {
        try await self.withServer(connectHost: "games.example") { certificates, address, group in
            let handshake = try await self.handshake(
                to: address,
                group: group,
                configuration: try self.trustingConfiguration(certificates),
                serverName: "other.example"
            )
            #expect(try self.alternativeNames(handshake.peerCertificate) == [.dnsName("other.example")])
            #expect(certificates.cachedHostCount == 2)
        }
    }

    @Test("without SNI the CONNECT host's certificate is served (an IP address, verified against the peer address)")
    func noServerName() async throws {
        try await self.withServer(connectHost: "127.0.0.1") { certificates, address, group in
            let handshake = try await self.handshake(
                to: address,
                group: group,
                configuration: try self.trustingConfiguration(certificates),
                serverName: nil
            )
            #expect(
                try self.alternativeNames(handshake.peerCertificate)
                    == [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]
            )
        }
    }

    @Test("the server sends the leaf then the CA")
    func servedChain() async throws {
        try await self.withServer(connectHost: "games.example") { certificates, address, group in
            let chain = NIOLockedValueBox<[NIOSSLCertificate]>([])
            let context = try NIOSSLContext(configuration: self.trustingConfiguration(certificates))
            let completed = group.next().makePromise(of: String?.self)
            let channel = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(
                                context: context,
                                serverHostname: "games.example",
                                customVerificationCallback: { certificates, promise in
                                    chain.withLockedValue { $0 = certificates }
                                    promise.succeed(.certificateVerified)
                                }
                            )
                        )
                        try channel.pipeline.syncOperations.addHandler(HandshakeObserver(promise: completed))
                    }
                }
                .connect(to: address)
                .get()
            _ = try await completed.futureResult.get()
            try? await channel.close()
            let served = try chain.withLockedValue { try $0.map { try Certificate(derEncoded: $0.toDERBytes()) } }
            #expect(
                served == [try certificates.leaf(for: "games.example").certificate, certificates.authority.certificate]
            )
        }
    }

    @Test("a client with the default trust store, which does not trust the CA, fails the handshake")
    func untrustedCA() async throws {
        try await self.withServer(connectHost: "games.example") { _, address, group in
            await #expect(throws: (any Error).self) {
                try await self.handshake(
                    to: address,
                    group: group,
                    configuration: TLSConfiguration.makeClientConfiguration(),
                    serverName: "games.example"
                )
            }
        }
    }

    @Test("without SNI a DNS CONNECT host's leaf is served, which a client checking the IP address rejects")
    func identityChecked() async throws {
        // The client trusts the CA but, sending no name, verifies the leaf against 127.0.0.1: trust alone is not enough.
        try await self.withServer(connectHost: "games.example") { certificates, address, group in
            await #expect(throws: (any Error).self) {
                try await self.handshake(
                    to: address,
                    group: group,
                    configuration: try self.trustingConfiguration(certificates),
                    serverName: nil
                )
            }
        }
    }

    @Test("a client limited to TLS 1.1 is refused")
    func tlsOnePointOneRefused() async throws {
        try await self.withServer(connectHost: "games.example") { certificates, address, group in
            var configuration = try self.trustingConfiguration(certificates)
            configuration.minimumTLSVersion = .tlsv1
            configuration.maximumTLSVersion = .tlsv11
            await #expect(throws: (any Error).self) {
                try await self.handshake(
                    to: address,
                    group: group,
                    configuration: configuration,
                    serverName: "games.example"
                )
            }
        }
    }

    @Test("a client limited to TLS 1.2 succeeds with TLS 1.2")
    func tlsOnePointTwo() async throws {
        try await self.withServer(connectHost: "games.example") { certificates, address, group in
            var configuration = try self.trustingConfiguration(certificates)
            configuration.maximumTLSVersion = .tlsv12
            let handshake = try await self.handshake(
                to: address,
                group: group,
                configuration: configuration,
                serverName: "games.example"
            )
            #expect(handshake.tlsVersion == .tlsv12)
            #expect(handshake.negotiatedProtocol == "http/1.1")
        }
    }
}

import Logging
import NIOSSL

extension UpstreamTrust {
    /// A client TLS configuration that verifies peers and host names against these roots: the
    /// system's, plus the additional CA file's certificates when there is one. Shared by
    /// ``UpstreamConnector`` and ``NIOUpstream`` so that every NIO connection trusts the same.
    ///
    /// - Throws: ``UpstreamConfigurationError`` when the additional CA file cannot be read, or the
    ///   roots cannot be parsed.
    package func clientTLSConfiguration(logger: Logger) throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let rootsPEM = try self.rootsPEM(logger: logger) {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(rootsPEM)))
        }
        return configuration
    }
}

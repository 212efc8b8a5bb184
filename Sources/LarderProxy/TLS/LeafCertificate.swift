import Crypto
import X509

/// A server certificate for one host, issued by Larder's ``CertificateAuthority``, with its private key.
public struct LeafCertificate: Sendable {
    /// The host the certificate is for, normalised: a lower-cased DNS name, or an IP address without brackets.
    public let host: String
    /// The leaf certificate.
    public let certificate: Certificate
    /// The CA certificate that signed it.
    public let issuer: Certificate
    /// The leaf's private key (shared by all leaves of one ``CertificateAuthority``, and never written to disk).
    public let privateKey: P256.Signing.PrivateKey

    /// The leaf certificate in PEM.
    public func certificatePEM() throws -> String {
        try self.certificate.serializeAsPEM().pemString
    }

    /// The chain a server presents: the leaf then the CA certificate, in PEM.
    public func chainPEM() throws -> String {
        try self.certificatePEM() + "\n" + self.issuer.serializeAsPEM().pemString + "\n"
    }

    /// The private key in PEM (PKCS #8).
    public var privateKeyPEM: String {
        self.privateKey.pemRepresentation
    }

    /// The leaf then the CA certificate, each in DER.
    func chainDER() throws -> [[UInt8]] {
        [try self.certificate.serializeAsPEM().derBytes, try self.issuer.serializeAsPEM().derBytes]
    }
}

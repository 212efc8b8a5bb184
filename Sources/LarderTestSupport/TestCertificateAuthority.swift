import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A throwaway certificate authority (P-256) for TLS tests, and the leaves it signs.
public struct TestCertificateAuthority: Sendable {
    /// The CA certificate.
    public let certificate: Certificate
    private let privateKey: P256.Signing.PrivateKey

    /// Creates a new CA, valid from an hour ago for 30 days.
    public init(commonName: String = "Larder Test CA") throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("Larder tests")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        self.certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: Date().addingTimeInterval(-3600),
            notValidAfter: Date().addingTimeInterval(30 * 24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        self.privateKey = key
    }

    /// The CA certificate in PEM.
    public func certificatePEM() throws -> String {
        try self.certificate.serializeAsPEM().pemString
    }

    /// Writes the CA certificate in PEM to a new file in the temporary folder and returns its path.
    public func writeCertificatePEMToTemporaryFile() throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("larder-test-ca-\(UUID().uuidString).pem").path
        try self.certificatePEM().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Issues a server certificate for these names, valid from an hour ago for 30 days, with
    /// serverAuth extended key usage.
    ///
    /// - Parameters:
    ///   - dnsNames: DNS subject alternative names, e.g. `localhost`.
    ///   - ipAddresses: IPv4 subject alternative names in dotted form, e.g. `127.0.0.1`.
    public func issueServerCertificate(
        dnsNames: [String],
        ipAddresses: [String] = []
    ) throws -> TestServerCertificate {
        var alternativeNames = dnsNames.map { GeneralName.dnsName($0) }
        for address in ipAddresses {
            let octets = address.split(separator: ".").compactMap { UInt8($0) }
            guard octets.count == 4 else {
                throw TestCertificateError.invalidIPv4Address(address)
            }
            alternativeNames.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(octets))))
        }
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let commonName = dnsNames.first ?? ipAddresses.first ?? "test server"
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: Date().addingTimeInterval(-3600),
            notValidAfter: Date().addingTimeInterval(30 * 24 * 3600),
            issuer: self.certificate.subject,
            subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternativeNames)
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: self.certificate.publicKey).keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(self.privateKey)
        )
        return TestServerCertificate(
            certificatePEM: try certificate.serializeAsPEM().pemString,
            privateKeyPEM: key.pemRepresentation
        )
    }
}

/// What a TLS test server needs: its context, and the CA a client must trust.
public struct LocalhostTLSServer: Sendable {
    /// The server context: a leaf for `localhost` and `127.0.0.1`, signed by a fresh test CA.
    public let context: NIOSSLContext
    /// The PEM file of that CA's certificate.
    public let caCertificatePath: String

    /// Makes a fresh CA, the leaf, and the context.
    public init() throws {
        let authority = try TestCertificateAuthority()
        let leaf = try authority.issueServerCertificate(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try leaf.nioCertificate())],
            privateKey: .privateKey(try leaf.nioPrivateKey())
        )
        self.context = try NIOSSLContext(configuration: configuration)
        self.caCertificatePath = try authority.writeCertificatePEMToTemporaryFile()
    }
}

/// A server certificate and its private key, in PEM.
public struct TestServerCertificate: Sendable {
    /// The leaf certificate in PEM.
    public let certificatePEM: String
    /// The leaf's private key in PEM (PKCS #8).
    public let privateKeyPEM: String

    /// The certificate for NIOSSL.
    public func nioCertificate() throws -> NIOSSLCertificate {
        try NIOSSLCertificate(bytes: Array(self.certificatePEM.utf8), format: .pem)
    }

    /// The private key for NIOSSL.
    public func nioPrivateKey() throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(self.privateKeyPEM.utf8), format: .pem)
    }
}

/// Why a test certificate could not be made.
public enum TestCertificateError: Error, CustomStringConvertible {
    /// The IP address is not dotted IPv4.
    case invalidIPv4Address(String)

    /// A description naming the input.
    public var description: String {
        switch self {
        case .invalidIPv4Address(let address): "not a dotted IPv4 address: \(address)"
        }
    }
}

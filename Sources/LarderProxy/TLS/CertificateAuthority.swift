import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Larder's local certificate authority: a P-256 key and a self-signed CA certificate kept in `<cacheDir>/ca/`,
/// which signs the leaf certificates Larder presents when it intercepts HTTPS.
///
/// The CA is created on first use and loaded, after validation, ever after; an existing CA is never replaced.
/// Leaf certificates all share one P-256 key made when the CA is loaded and kept only in memory.
public final class CertificateAuthority: Sendable {
    /// The CA certificate.
    public let certificate: Certificate
    /// The path of the CA certificate in PEM, `<cacheDir>/ca/ca.pem`; this is the file users trust.
    public let certificatePath: String
    /// The path of the CA private key in PEM, `<cacheDir>/ca/ca-key.pem` (mode 0600).
    public let privateKeyPath: String

    /// The key the CA signs with.
    private let privateKey: P256.Signing.PrivateKey
    /// The key of every leaf this CA issues in this process.
    let leafPrivateKey: P256.Signing.PrivateKey
    /// ``leafPrivateKey`` in NIOSSL's form, converted once for all TLS contexts.
    let leafNIOSSLPrivateKey: NIOSSLPrivateKey
    /// The CA's subject key identifier, which every leaf names as its authority key identifier.
    let subjectKeyIdentifier: ArraySlice<UInt8>

    /// How long a new CA is valid: ten years.
    static let validity: TimeInterval = 3652 * 86_400
    /// How far back certificates are dated, so that clients with a slightly wrong clock accept them.
    static let backdating: TimeInterval = 86_400
    /// The longest validity period (notAfter - notBefore) of a leaf, the CA/Browser Forum limit.
    static let leafValidity: TimeInterval = 397 * 86_400

    private init(
        certificate: Certificate,
        privateKey: P256.Signing.PrivateKey,
        directory: CertificateAuthorityDirectory
    ) throws(CertificateAuthorityError) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.certificatePath = directory.certificatePath
        self.privateKeyPath = directory.privateKeyPath
        let leafPrivateKey = P256.Signing.PrivateKey()
        self.leafPrivateKey = leafPrivateKey
        do {
            self.leafNIOSSLPrivateKey = try NIOSSLPrivateKey(
                bytes: Array(leafPrivateKey.derRepresentation),
                format: .der
            )
        } catch {
            throw CertificateAuthorityError(
                .certificateGeneration,
                subject: directory.certificatePath,
                "The TLS library rejected the leaf key made for the CA \(directory.certificatePath): \(error)."
            )
        }
        do {
            self.subjectKeyIdentifier =
                try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
                ?? SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier
        } catch {
            throw CertificateAuthorityError(
                .malformedCertificate,
                subject: directory.certificatePath,
                "The CA certificate \(directory.certificatePath) has an unreadable subject key identifier: \(error)."
            )
        }
    }

    /// Loads the CA from `<directory>/ca/`, or creates it there when neither of its files exists.
    ///
    /// Loading validates the CA: the key file must be mode 0600 (no access for group or others), both files must
    /// parse, the key must match the certificate, the certificate must be a CA and valid at `now`. Any problem is
    /// a ``CertificateAuthorityError`` naming the file and the fix; nothing is ever overwritten. When two
    /// processes create the CA at once, one wins and both use its CA.
    ///
    /// - Parameters:
    ///   - directory: The cache directory; it is created if missing.
    ///   - now: The current time, for the validity check and a new CA's dates.
    public static func loadOrCreate(directory: String, now: Date) throws -> CertificateAuthority {
        let files = CertificateAuthorityDirectory(cacheDirectory: directory)
        let existing = files.existingFiles()
        if !existing.certificate && !existing.privateKey {
            let (certificate, privateKey) = try Self.makeAuthority(now: now)
            let installed = try files.install(
                certificatePEM: try Self.pem(certificate, path: files.certificatePath),
                privateKeyPEM: privateKey.pemRepresentation
            )
            if installed {
                return try CertificateAuthority(certificate: certificate, privateKey: privateKey, directory: files)
            }
        }
        return try Self.load(files, now: now)
    }

    /// The CA certificate in PEM, as written to ``certificatePath``.
    public func pem() throws -> String {
        try Self.pem(self.certificate, path: self.certificatePath)
    }

    /// The CA certificate in DER, for systems that import `.cer`/`.crt` files.
    public func der() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self.certificate)
        return serializer.serializedBytes
    }

    /// Issues a leaf certificate for `host`, signed by this CA and valid for TLS server authentication.
    ///
    /// The leaf names `host` as a DNS or IP address subject alternative name and as its common name (cut to 64
    /// characters), is valid from a day before `now` for at most 397 days and never beyond the CA, and uses the
    /// leaf key shared by all leaves of this CA.
    ///
    /// - Parameters:
    ///   - host: A DNS name or an IPv4 or IPv6 literal (brackets allowed).
    ///   - now: The current time.
    /// - Throws: ``CertificateAuthorityError`` of kind ``CertificateAuthorityError/Kind/invalidHost`` for a host
    ///   that is not a valid DNS name or IP address.
    public func issueLeaf(for host: String, now: Date) throws -> LeafCertificate {
        try self.issueLeaf(for: try InterceptionHost(host), now: now)
    }

    func issueLeaf(for host: InterceptionHost, now: Date) throws(CertificateAuthorityError) -> LeafCertificate {
        let notBefore = now - Self.backdating
        let notAfter = min(notBefore + Self.leafValidity, self.certificate.notValidAfter)
        guard notAfter > now else {
            throw CertificateAuthorityError(
                .expired,
                subject: self.certificatePath,
                "The CA certificate \(self.certificatePath) expired on \(self.certificate.notValidAfter); "
                    + "cannot issue a certificate for \(host.name)."
            )
        }
        let alternativeName: GeneralName =
            switch host.kind {
            case .dnsName: .dnsName(host.name)
            case .ipv4(let bytes), .ipv6(let bytes): .ipAddress(ASN1OctetString(contentBytes: bytes[...]))
            }
        let publicKey = Certificate.PublicKey(self.leafPrivateKey.publicKey)
        do {
            let certificate = try Certificate(
                version: .v3,
                serialNumber: Self.randomSerialNumber(),
                publicKey: publicKey,
                notValidBefore: notBefore,
                notValidAfter: notAfter,
                issuer: self.certificate.subject,
                subject: try DistinguishedName { CommonName(host.commonName) },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames([alternativeName])
                    SubjectKeyIdentifier(hash: publicKey)
                    AuthorityKeyIdentifier(keyIdentifier: self.subjectKeyIdentifier)
                },
                issuerPrivateKey: Certificate.PrivateKey(self.privateKey)
            )
            return LeafCertificate(
                host: host.name,
                certificate: certificate,
                issuer: self.certificate,
                privateKey: self.leafPrivateKey
            )
        } catch {
            throw CertificateAuthorityError(
                .certificateGeneration,
                subject: host.name,
                "Cannot build a certificate for \(host.name): \(error)."
            )
        }
    }

    // MARK: - Creating

    /// A new CA key and self-signed certificate, with a subject unique to this install.
    private static func makeAuthority(now: Date) throws -> (Certificate, P256.Signing.PrivateKey) {
        let privateKey = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(privateKey.publicKey)
        let installTag = String(UInt32.random(in: .min ... .max), radix: 16)
        let name = try DistinguishedName {
            CommonName(Self.commonName(now: now))
            OrganizationName("Larder")
            // Two installs on one machine on one day still get different subjects, which trust stores require.
            OrganizationalUnitName("install \(installTag)")
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Self.randomSerialNumber(),
            publicKey: publicKey,
            notValidBefore: now - Self.backdating,
            notValidAfter: now + Self.validity,
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(privateKey)
        )
        return (certificate, privateKey)
    }

    /// "Larder Local CA (hostname, 2026-11-22)", within the 64 characters a common name may have.
    private static func commonName(now: Date) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let machine =
            gethostname(&buffer, buffer.count - 1) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : "localhost"
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let day = calendar.dateComponents([.year, .month, .day], from: now)
        let date = String(format: "%04d-%02d-%02d", day.year ?? 0, day.month ?? 0, day.day ?? 0)
        let fixedLength = "Larder Local CA (, )".count + date.count
        return "Larder Local CA (\(machine.prefix(64 - fixedLength)), \(date))"
    }

    /// A random, positive, 16-byte serial number.
    private static func randomSerialNumber() -> Certificate.SerialNumber {
        var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        // Clear the sign bit so the INTEGER is positive, and set the next so no leading byte is dropped.
        bytes[0] = (bytes[0] & 0x7F) | 0x40
        return Certificate.SerialNumber(bytes: bytes)
    }

    // MARK: - Loading

    private static func load(_ files: CertificateAuthorityDirectory, now: Date) throws -> CertificateAuthority {
        let existing = files.existingFiles()
        guard existing.certificate, existing.privateKey else {
            let (present, missing) =
                existing.certificate
                ? (files.certificatePath, files.privateKeyPath) : (files.privateKeyPath, files.certificatePath)
            throw CertificateAuthorityError(
                .incompleteAuthority,
                subject: missing,
                "The CA file \(missing) is missing but \(present) exists. Restore the missing file, or move "
                    + "\(files.path) away so that Larder creates a new CA (which browsers must then trust again)."
            )
        }
        let keyBytes = try files.readPrivateKey()
        let certificateBytes = try files.readCertificate()

        let privateKey: P256.Signing.PrivateKey
        do {
            privateKey = try P256.Signing.PrivateKey(pemRepresentation: String(decoding: keyBytes, as: UTF8.self))
        } catch {
            throw CertificateAuthorityError(
                .malformedPrivateKey,
                subject: files.privateKeyPath,
                "The CA private key \(files.privateKeyPath) is not a P-256 private key in PEM (\(error)). "
                    + Self.replaceAdvice(files)
            )
        }
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: String(decoding: certificateBytes, as: UTF8.self))
        } catch {
            throw CertificateAuthorityError(
                .malformedCertificate,
                subject: files.certificatePath,
                "The CA certificate \(files.certificatePath) is not a certificate in PEM (\(error)). "
                    + Self.replaceAdvice(files)
            )
        }
        guard certificate.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
            throw CertificateAuthorityError(
                .keyDoesNotMatchCertificate,
                subject: files.privateKeyPath,
                "The CA private key \(files.privateKeyPath) does not belong to the certificate \(files.certificatePath). "
                    + Self.replaceAdvice(files)
            )
        }
        try Self.checkIsAuthority(certificate, path: files.certificatePath, files: files)
        guard now >= certificate.notValidBefore else {
            throw CertificateAuthorityError(
                .notYetValid,
                subject: files.certificatePath,
                "The CA certificate \(files.certificatePath) is not valid before \(certificate.notValidBefore); "
                    + "it is now \(now). Check the system clock."
            )
        }
        guard now < certificate.notValidAfter else {
            throw CertificateAuthorityError(
                .expired,
                subject: files.certificatePath,
                "The CA certificate \(files.certificatePath) expired on \(certificate.notValidAfter). "
                    + Self.replaceAdvice(files)
            )
        }
        return try CertificateAuthority(certificate: certificate, privateKey: privateKey, directory: files)
    }

    private static func checkIsAuthority(
        _ certificate: Certificate,
        path: String,
        files: CertificateAuthorityDirectory
    ) throws(CertificateAuthorityError) {
        let basicConstraints: BasicConstraints?
        let keyUsage: KeyUsage?
        do {
            basicConstraints = try certificate.extensions.basicConstraints
            keyUsage = try certificate.extensions.keyUsage
        } catch {
            throw CertificateAuthorityError(
                .malformedCertificate,
                subject: path,
                "The CA certificate \(path) has unreadable extensions (\(error)). " + Self.replaceAdvice(files)
            )
        }
        let isAuthority: Bool =
            switch basicConstraints {
            case .isCertificateAuthority: true
            case .notCertificateAuthority, nil: false
            }
        guard isAuthority, keyUsage?.keyCertSign ?? true else {
            throw CertificateAuthorityError(
                .notACertificateAuthority,
                subject: path,
                "The certificate \(path) is not a certificate authority allowed to sign certificates "
                    + "(it needs basicConstraints CA:TRUE and, if it has keyUsage, keyCertSign). "
                    + Self.replaceAdvice(files)
            )
        }
    }

    private static func replaceAdvice(_ files: CertificateAuthorityDirectory) -> String {
        "Larder never replaces an existing CA: move \(files.path) away to have a new one created "
            + "(browsers must then trust the new \(files.certificatePath))."
    }

    private static func pem(_ certificate: Certificate, path: String) throws(CertificateAuthorityError) -> String {
        do {
            return try certificate.serializeAsPEM().pemString
        } catch {
            throw CertificateAuthorityError(
                .certificateGeneration,
                subject: path,
                "Cannot encode the CA certificate \(path) as PEM: \(error)."
            )
        }
    }
}

/// Why the local certificate authority could not be created or loaded, or why a leaf certificate could not be
/// issued. The description names the file or host and says what to do about it.
public struct CertificateAuthorityError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for callers that handle some problems differently.
    public enum Kind: Sendable, Hashable {
        /// The CA private key file is readable or writable by group or others.
        case insecureKeyPermissions
        /// One of the two CA files exists and the other does not.
        case incompleteAuthority
        /// A CA file could not be read, written, created or renamed.
        case fileSystem
        /// The CA private key file does not hold a P-256 private key in PEM.
        case malformedPrivateKey
        /// The CA certificate file does not hold a certificate in PEM.
        case malformedCertificate
        /// The CA private key does not belong to the CA certificate.
        case keyDoesNotMatchCertificate
        /// The CA certificate is not a certificate authority that may sign certificates.
        case notACertificateAuthority
        /// The CA certificate has expired.
        case expired
        /// The CA certificate is not valid yet (the clock may be wrong).
        case notYetValid
        /// The host a leaf certificate was asked for is not a valid DNS name or IP address.
        case invalidHost
        /// Building or signing a certificate, or handing it to the TLS library, failed.
        case certificateGeneration
    }

    /// What went wrong.
    public let kind: Kind
    /// The file or host concerned.
    public let subject: String
    /// A sentence naming ``subject``, the problem and, where there is one, the fix.
    public let description: String

    init(_ kind: Kind, subject: String, _ description: String) {
        self.kind = kind
        self.subject = subject
        self.description = description
    }
}

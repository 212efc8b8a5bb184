import Foundation
import Logging

/// Which upstream TLS servers Larder trusts, for every kind of upstream connection (libcurl's
/// fetches, and the tunnels and WebSocket streams of ``UpstreamConnector``): the system's roots,
/// plus the certificates of an optional PEM file (`--upstream-ca`, e.g. a test or private CA).
///
/// Peer and host name verification are always on; this only widens what is trusted.
public struct UpstreamTrust: Sendable, Hashable {
    /// A PEM file of one or more CA certificates trusted in addition to the system's roots.
    public var additionalCAFile: String?

    /// Trust in the system's roots, and in `additionalCAFile`'s certificates when given.
    public init(additionalCAFile: String? = nil) {
        self.additionalCAFile = additionalCAFile
    }

    /// Where Linux distributions and macOS keep the system CA bundle; the first that exists is used.
    static let systemBundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Arch, Alpine
        "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL
        "/etc/ssl/ca-bundle.pem",  // openSUSE
        "/etc/ssl/cert.pem",  // macOS, BSDs
    ]

    private static let certificateMarker = "-----BEGIN CERTIFICATE-----"

    /// The trusted roots as one PEM bundle: the system bundle followed by the additional CA file;
    /// nil without an additional CA file (each TLS library then uses the system's roots as it finds them).
    ///
    /// - Throws: ``UpstreamConfigurationError`` when the file cannot be read or holds no PEM certificate.
    func rootsPEM(logger: Logger) throws(UpstreamConfigurationError) -> Data? {
        guard let additionalCAFile = self.additionalCAFile else {
            return nil
        }
        let additional: Data
        do {
            additional = try Data(contentsOf: URL(fileURLWithPath: additionalCAFile))
        } catch {
            throw UpstreamConfigurationError(
                message: "cannot read the additional CA file \(additionalCAFile): \(error.localizedDescription)"
            )
        }
        guard String(decoding: additional, as: UTF8.self).contains(Self.certificateMarker) else {
            throw UpstreamConfigurationError(
                message: "the additional CA file \(additionalCAFile) contains no PEM certificate "
                    + "(expected a \(Self.certificateMarker) block)"
            )
        }
        var pem = Data()
        if let systemPath = Self.systemBundlePaths.first(where: { FileManager.default.isReadableFile(atPath: $0) }),
            let system = FileManager.default.contents(atPath: systemPath)
        {
            pem.append(system)
            pem.append(UInt8(ascii: "\n"))
        } else {
            logger.warning(
                "no system CA bundle found; upstream TLS trusts only the additional CA",
                metadata: ["searched": "\(Self.systemBundlePaths)", "additionalCAFile": "\(additionalCAFile)"]
            )
        }
        pem.append(additional)
        return pem
    }
}

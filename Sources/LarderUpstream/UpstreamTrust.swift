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
        guard self.additionalCAFile != nil else {
            return nil
        }
        return try self.bundlePEM(logger: logger)
    }

    /// The system bundle in use: the first of ``systemBundlePaths`` that can be read.
    static func systemBundlePath() -> String? {
        Self.systemBundlePaths.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// The files the trusted roots are read from: the system bundle, then the additional CA file.
    package func sourceFiles() -> [String] {
        [Self.systemBundlePath(), self.additionalCAFile].compactMap { $0 }
    }

    /// The trusted roots as one PEM bundle: the system bundle followed by the additional CA file
    /// when there is one; nil when there is neither.
    ///
    /// - Throws: ``UpstreamConfigurationError`` when the additional CA file cannot be read or holds no PEM certificate.
    package func bundlePEM(logger: Logger) throws(UpstreamConfigurationError) -> Data? {
        var additional: Data?
        if let additionalCAFile = self.additionalCAFile {
            do {
                additional = try Data(contentsOf: URL(fileURLWithPath: additionalCAFile))
            } catch {
                throw UpstreamConfigurationError(
                    message: "cannot read the additional CA file \(additionalCAFile): \(error.localizedDescription)"
                )
            }
            guard String(decoding: additional ?? Data(), as: UTF8.self).contains(Self.certificateMarker) else {
                throw UpstreamConfigurationError(
                    message: "the additional CA file \(additionalCAFile) contains no PEM certificate "
                        + "(expected a \(Self.certificateMarker) block)"
                )
            }
        }
        var pem = Data()
        if let systemPath = Self.systemBundlePath(), let system = FileManager.default.contents(atPath: systemPath) {
            pem.append(system)
            pem.append(UInt8(ascii: "\n"))
        } else if let additionalCAFile = self.additionalCAFile {
            logger.warning(
                "no system CA bundle found; upstream TLS trusts only the additional CA",
                metadata: ["searched": "\(Self.systemBundlePaths)", "additionalCAFile": "\(additionalCAFile)"]
            )
        } else {
            return nil
        }
        if let additional {
            pem.append(additional)
        }
        return pem
    }
}

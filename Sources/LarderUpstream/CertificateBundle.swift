import Foundation
import Logging

/// The PEM bundle of trusted CAs handed to curl (CURLOPT_CAINFO_BLOB) when an additional CA is configured:
/// the system bundle followed by the additional CA file.
///
/// `@unchecked Sendable`: the bytes are written once in `init` and only read (by curl) afterwards.
final class CertificateBundle: @unchecked Sendable {
    /// Where Linux distributions and macOS keep the system CA bundle; the first that exists is used.
    static let systemBundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Arch, Alpine
        "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL
        "/etc/ssl/ca-bundle.pem",  // openSUSE
        "/etc/ssl/cert.pem",  // macOS, BSDs
    ]

    private static let certificateMarker = "-----BEGIN CERTIFICATE-----"

    /// The PEM text, owned by this object and alive as long as it is.
    let bytes: UnsafeMutableRawBufferPointer

    /// Builds the bundle from the system bundle and `additionalCAFile`.
    ///
    /// - Throws: ``CurlUpstream/ConfigurationError`` when the file cannot be read or holds no PEM certificate.
    init(additionalCAFile: String, logger: Logger) throws(CurlUpstream.ConfigurationError) {
        let additional: Data
        do {
            additional = try Data(contentsOf: URL(fileURLWithPath: additionalCAFile))
        } catch {
            throw CurlUpstream.ConfigurationError(
                message: "cannot read the additional CA file \(additionalCAFile): \(error.localizedDescription)"
            )
        }
        guard String(decoding: additional, as: UTF8.self).contains(Self.certificateMarker) else {
            throw CurlUpstream.ConfigurationError(
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
        self.bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: pem.count, alignment: 1)
        _ = pem.copyBytes(to: self.bytes)
    }

    deinit {
        self.bytes.deallocate()
    }
}

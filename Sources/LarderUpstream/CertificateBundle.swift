import Foundation

/// The PEM bundle of trusted roots handed to curl (CURLOPT_CAINFO_BLOB without a copy), kept in memory
/// that lives as long as this object does.
///
/// `@unchecked Sendable`: the bytes are written once in `init` and only read (by curl) afterwards.
final class CertificateBundle: @unchecked Sendable {
    /// The PEM text, owned by this object and alive as long as it is.
    let bytes: UnsafeMutableRawBufferPointer

    /// Copies `pem` (see ``UpstreamTrust/rootsPEM(logger:)``).
    init(pem: Data) {
        self.bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: pem.count, alignment: 1)
        _ = pem.copyBytes(to: self.bytes)
    }

    deinit {
        self.bytes.deallocate()
    }
}

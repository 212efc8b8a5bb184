// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import Foundation
    import LarderUpstream
    import Logging
    import Synchronization

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// The trusted roots (``UpstreamTrust/bundlePEM(logger:)``) in a file that every curl handle names
    /// with CURLOPT_CAINFO (and no CURLOPT_CAPATH). libcurl with OpenSSL keeps the certificate store
    /// it built from a CA file, per multi handle and keyed by the file's path
    /// (CURLOPT_CA_CACHE_TIMEOUT), so the bundle is parsed once for every connection and every handle.
    /// A CURLOPT_CAINFO_BLOB, or a CA folder beside the file, is parsed again for each new connection
    /// (libcurl 7.88: some 17 ms of CPU for the 140 certificates of Debian's bundle).
    ///
    /// The file leaves nothing behind, even after a SIGKILL: it is created private (0600) in the
    /// temporary folder, written, and unlinked at once; curl reads it through the descriptor kept
    /// open (`/proc/self/fd/N`, `/dev/fd/N` on Darwin), which goes with the process.
    ///
    /// When a source file changes (``TrustSourceStamps``), the bundle is written again to a new file:
    /// the next connection builds the new store once, under the new path. Earlier files stay open
    /// until this object goes, so no path is ever reused for other roots (a handful of descriptors,
    /// one per change of a CA file).
    final class TrustBundleFile: Sendable {
        private struct State {
            var stamps: TrustSourceStamps
            /// Every bundle written, the current one last.
            var descriptors: [Int32]
            var path: String
        }

        private let trust: UpstreamTrust
        private let state: Mutex<State>
        private let logger: Logger

        /// Writes the bundle of `trust`; nil when there are no roots to write (no system bundle and no
        /// additional CA file: curl then uses its own default).
        ///
        /// - Throws: ``UpstreamConfigurationError`` when the additional CA file cannot be read or holds
        ///   no PEM certificate, or the file cannot be written.
        init?(
            trust: UpstreamTrust, checkInterval: Duration = TrustSourceStamps.defaultCheckInterval, logger: Logger
        ) throws(UpstreamConfigurationError) {
            let stamps = TrustSourceStamps(of: trust, checkInterval: checkInterval)
            guard let pem = try trust.bundlePEM(logger: logger) else {
                return nil
            }
            self.trust = trust
            self.logger = logger
            let descriptor = try Self.writeUnlinked(pem)
            self.state = Mutex(State(stamps: stamps, descriptors: [descriptor], path: Self.path(of: descriptor)))
        }

        deinit {
            self.state.withLock { state in
                for descriptor in state.descriptors {
                    close(descriptor)
                }
            }
        }

        /// The bundle's path for a new transfer, after writing it again when a source file has
        /// changed (looked at no more than every `checkInterval`). A bundle that
        /// cannot be rebuilt (an additional CA file gone bad) leaves the last one in use, and says so.
        func currentPath() -> String {
            self.state.withLock { state in
                guard state.stamps.haveChanged() else {
                    return state.path
                }
                do {
                    guard let pem = try self.trust.bundlePEM(logger: self.logger) else {
                        throw UpstreamConfigurationError(message: "no system CA bundle and no additional CA file")
                    }
                    let descriptor = try Self.writeUnlinked(pem)
                    state.descriptors.append(descriptor)
                    state.path = Self.path(of: descriptor)
                    self.logger.notice(
                        "upstream CA files changed; new connections trust the new bundle",
                        metadata: ["files": "\(self.trust.sourceFiles())"])
                } catch {
                    self.logger.error(
                        "upstream CA files changed but cannot be read; new connections keep the last bundle",
                        metadata: ["error": "\(error)"])
                }
                return state.path
            }
        }

        /// The path through which the open file `descriptor` is read again.
        private static func path(of descriptor: Int32) -> String {
            #if canImport(Darwin)
                "/dev/fd/\(descriptor)"
            #else
                "/proc/self/fd/\(descriptor)"
            #endif
        }

        /// Writes `pem` to a new private file, unlinked before this returns; its open descriptor.
        private static func writeUnlinked(_ pem: Data) throws(UpstreamConfigurationError) -> Int32 {
            var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("larder-trust-XXXXXX").utf8CString)
            // mkstemp makes the file 0600, opened read-write, with a name no one else has.
            let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard descriptor >= 0 else {
                throw UpstreamConfigurationError(
                    message: "cannot make a private file for the upstream CA bundle in \(NSTemporaryDirectory()): "
                        + String(cString: strerror(errno)))
            }
            let name = String(cString: template)
            unlink(name)
            let written = pem.withUnsafeBytes { bytes -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let count = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { return false }
                    offset += count
                }
                return true
            }
            guard written else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw UpstreamConfigurationError(message: "cannot write the upstream CA bundle: \(reason)")
            }
            return descriptor
        }
    }
#endif

import Foundation
import Logging
import Synchronization

/// The trusted roots (``UpstreamTrust/bundlePEM(logger:)``) written to a file in a private folder,
/// which every curl handle names with CURLOPT_CAINFO (and no CURLOPT_CAPATH). libcurl with OpenSSL
/// keeps the certificate store it built from a CA file, per multi handle and keyed by the file's
/// path (CURLOPT_CA_CACHE_TIMEOUT), so the bundle is parsed once for every connection and every
/// handle. A CURLOPT_CAINFO_BLOB, or a CA folder beside the file, is parsed again for each new
/// connection (libcurl 7.88: some 17 ms of CPU for the 140 certificates of Debian's bundle).
///
/// When a source file changes (``TrustSourceStamps``), the bundle is written again under a new
/// name: the next connection builds the new store once, under its new key. The file before it is
/// kept (a transfer that started with it may still connect again), older ones are removed, and so
/// is the folder when this object goes.
final class TrustBundleFile: Sendable {
    private struct State {
        var stamps: TrustSourceStamps
        var generation: Int
        var path: String
    }

    private let trust: UpstreamTrust
    private let folder: String
    private let state: Mutex<State>
    private let logger: Logger

    /// Writes the bundle of `trust` into a new private folder; nil when there are no roots to
    /// write (no system bundle and no additional CA file: curl then uses its own default).
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
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("larder-trust-XXXXXX").utf8CString)
        // mkdtemp makes the folder 0700: no one else can put a file of their own in its place.
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw UpstreamConfigurationError(
                message: "cannot make a private folder for the upstream CA bundle in \(NSTemporaryDirectory()): "
                    + String(cString: strerror(errno)))
        }
        self.folder = String(cString: made)
        self.trust = trust
        self.logger = logger
        let path = try Self.write(pem, generation: 1, in: self.folder)
        self.state = Mutex(State(stamps: stamps, generation: 1, path: path))
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.folder)
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
                let generation = state.generation + 1
                state.path = try Self.write(pem, generation: generation, in: self.folder)
                state.generation = generation
                if generation > 2 {
                    try? FileManager.default.removeItem(atPath: Self.path(generation: generation - 2, in: self.folder))
                }
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

    private static func path(generation: Int, in folder: String) -> String {
        (folder as NSString).appendingPathComponent("roots-\(generation).pem")
    }

    private static func write(_ pem: Data, generation: Int, in folder: String) throws(UpstreamConfigurationError) -> String {
        let path = Self.path(generation: generation, in: folder)
        guard FileManager.default.createFile(atPath: path, contents: pem, attributes: [.posixPermissions: 0o600]) else {
            throw UpstreamConfigurationError(message: "cannot write the upstream CA bundle \(path)")
        }
        return path
    }
}

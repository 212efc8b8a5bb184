import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cache directory is private to its user (docs/SERVING.md, "What is private and where it is
/// kept"): it holds the user's pages, queued writes with their credentials and the CA key. Larder
/// creates its folders 0700 and its files 0600; a directory that already exists keeps its mode,
/// and a looser one is reported (``warnIfLoose(_:logger:)``), never changed behind the user's back.
public enum PrivateDirectory {
    /// The mode of every folder Larder creates in the cache directory.
    public static let folderMode: mode_t = 0o700
    /// The mode of every file Larder creates in the cache directory (the CA certificate excepted:
    /// Sources/LarderProxy/TLS/CertificateAuthorityDirectory.swift).
    public static let fileMode: mode_t = 0o600

    /// Creates `path` with ``folderMode`` (its missing parents as `mkdir -p` would); an existing
    /// directory is left as it is. Returns whether it was created.
    @discardableResult
    public static func create(_ path: String) throws -> Bool {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        return try POSIXFile.makeDirectory(path)
    }

    /// The permission bits of the directory at `path` when group or others have any access to
    /// it, else nil (also when there is nothing there).
    public static func looseMode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let mode = info.st_mode & 0o777
        return mode & 0o077 == 0 ? nil : mode
    }

    /// What to tell the user about a directory with `mode` (``looseMode(of:)``).
    public static func warning(path: String, mode: mode_t) -> String {
        "The cache directory \(path) can be read by other users (mode \(String(mode, radix: 8))): it holds your cached pages, "
            + "queued writes and their credentials. Fix it with `chmod 700 \(path)`."
    }

    /// Logs ``warning(path:mode:)`` when the directory at `path` is loose. `larder serve` (and an
    /// embedding app) and `larder precache` call it after opening their store; commands whose
    /// standard output is data (`larder queue export`) do not.
    public static func warnIfLoose(_ path: String, logger: Logger) {
        if let mode = Self.looseMode(of: path) {
            logger.warning("\(Self.warning(path: path, mode: mode))")
        }
    }
}

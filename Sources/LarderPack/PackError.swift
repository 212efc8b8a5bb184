#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a pack cannot be written or read. Every case names the pack file.
public enum PackError: Error, CustomStringConvertible, Equatable {
    /// A file system call failed.
    case io(path: String, operation: String, errno: Int32)
    /// The file is not a Larder pack: not a tar archive, or one that does not start with the pack's manifest.
    case notAPack(path: String, reason: String)
    /// The pack ends early: cut off while copying or downloading.
    case truncated(path: String, entry: String?)
    /// The archive holds something a pack never does: a name that escapes (`../`), a link, an entry
    /// the manifest does not list, a damaged header.
    case damaged(path: String, reason: String)
    /// The pack was written in a format version this Larder cannot read.
    case unsupportedVersion(path: String, found: Int, supported: Int)
    /// The pack's manifest is not valid.
    case badManifest(path: String, reason: String)
    /// A body could not be exported: its file changed or vanished after the index was read.
    case bodyUnavailable(url: String, reason: String)

    /// Names the pack and the problem.
    public var description: String {
        switch self {
        case .io(let path, let operation, let errno):
            return "cannot \(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
        case .notAPack(let path, let reason):
            return "\(path) is not a Larder pack: \(reason)"
        case .truncated(let path, let entry):
            return "\(path) is truncated" + (entry.map { " inside \($0)" } ?? "")
                + " (cut off while copying?); no game was switched to it"
        case .damaged(let path, let reason):
            return "\(path) is damaged: \(reason)"
        case .unsupportedVersion(let path, let found, let supported):
            return "\(path) is a version \(found) pack; this Larder reads version \(supported) (a newer Larder wrote it?)"
        case .badManifest(let path, let reason):
            return "\(path) has an invalid manifest: \(reason)"
        case .bodyUnavailable(let url, let reason):
            return "cannot export the body of \(url): \(reason)"
        }
    }

    /// The tar layer's problem, named for the pack at `path`.
    init(_ problem: TarProblem, path: String, entry: String?) {
        switch problem {
        case .truncated:
            self = .truncated(path: path, entry: entry)
        case .badHeader(let reason):
            self = .damaged(path: path, reason: "a header" + (entry.map { " after \($0)" } ?? "") + " is bad: \(reason)")
        case .unsupportedType(let name, let type):
            self = .damaged(path: path, reason: "\(name) is of tar type '\(type)', which packs never hold (only regular files)")
        case .unsafeName(let name):
            self = .damaged(
                path: path, reason: "the entry name '\(name)' is absolute or climbs out of the archive; nothing is written for it")
        }
    }
}

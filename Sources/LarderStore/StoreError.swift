#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// Errors the store throws (database errors from GRDB pass through as they are).
public enum StoreError: Error, CustomStringConvertible, Equatable {
    /// A body's length differs from the length its response declared; nothing was stored.
    case lengthMismatch(expected: Int64, actual: Int64)
    /// A body's SHA-256 differs from the one its source promised (a pack's manifest); nothing was stored.
    case hashMismatch(expected: String, actual: String)
    /// A file system call failed.
    case io(path: String, operation: String, errno: Int32)
    /// The cache directory could not be opened.
    case cannotOpen(directory: String, reason: String)
    /// A ``BodyWriter`` was used after ``BodyWriter/commit(key:head:kind:expectedLength:revision:expectedHash:)`` or
    /// ``BodyWriter/discard()``.
    case writerFinished(temporaryPath: String)
    /// A response stored at run time was not kept: its key is a file of a game's complete version,
    /// which alone answers for it until a newer version is complete (docs/SERVING.md, "One version
    /// of a game").
    case heldByCompleteVersion(key: String)

    /// Names the path and the problem.
    public var description: String {
        switch self {
        case .lengthMismatch(let expected, let actual):
            return "body length mismatch: the response declared \(expected) bytes but \(actual) arrived; "
                + "the body was not stored"
        case .hashMismatch(let expected, let actual):
            return "body hash mismatch: expected SHA-256 \(expected) but the bytes hash to \(actual); the body was not stored"
        case .io(let path, let operation, let errno):
            return "cannot \(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
        case .cannotOpen(let directory, let reason):
            return "cannot open the cache directory \(directory): \(reason)"
        case .writerFinished(let temporaryPath):
            return "the body writer for \(temporaryPath) was already committed or discarded"
        case .heldByCompleteVersion(let key):
            return "not stored: \(key) is a file of a complete game version, which answers for it until a newer version is complete"
        }
    }
}

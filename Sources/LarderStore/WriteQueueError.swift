import LarderHTTP

/// Why a write cannot be queued, or a queued write's body cannot be read back.
public enum WriteQueueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body file is gone (the replayer dead-letters the write; so does the next start, see Store+Leftovers.swift).
    case bodyMissing(id: Int64, path: String)
    /// The body file's size differs from the size queued: it was damaged, and is not sent.
    case bodyDamaged(id: Int64, path: String, expected: Int64, actual: Int64)
    /// The write's row cannot be read (its headers or state are not as Larder writes them).
    case malformedRow(id: Int64)
    /// The queue keeps no more: the write would pass this limit (nothing was kept or removed).
    case full(WriteQueueLimits.Exceeded)

    /// Names the write, the file and the problem.
    public var description: String {
        switch self {
        case .bodyMissing(let id, let path):
            return "queued write \(id): its body file \(path) is missing"
        case .bodyDamaged(let id, let path, let expected, let actual):
            return "queued write \(id): its body file \(path) has \(actual) bytes, not the \(expected) queued"
        case .malformedRow(let id):
            return "queued write \(id): its row in the index cannot be read"
        case .full(let exceeded):
            return exceeded.description
        }
    }
}

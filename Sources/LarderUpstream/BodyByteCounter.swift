import Synchronization

/// Counts the body bytes curl has handed to a response body's buffer.
///
/// Written on the curl thread, readable from anywhere: the difference to what the consumer has read is what waits
/// in memory, which back-pressure keeps to a few chunks (tests check exactly that).
final class BodyByteCounter: Sendable {
    private let count = Mutex<Int64>(0)

    /// The bytes counted so far.
    var total: Int64 {
        self.count.withLock { $0 }
    }

    /// Counts `bytes` more.
    func add(_ bytes: Int) {
        self.count.withLock { $0 += Int64(bytes) }
    }
}

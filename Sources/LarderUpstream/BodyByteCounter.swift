import Synchronization

/// Counts the body bytes a client has handed to a response body's buffer.
///
/// Written on the client's thread, readable from anywhere: the difference to what the consumer has read is what waits
/// in memory, which back-pressure keeps to a few chunks (tests check exactly that).
package final class BodyByteCounter: Sendable {
    private let count = Mutex<Int64>(0)

    /// A counter at zero.
    package init() {}

    /// The bytes counted so far.
    package var total: Int64 {
        self.count.withLock { $0 }
    }

    /// Counts `bytes` more.
    package func add(_ bytes: Int) {
        self.count.withLock { $0 += Int64(bytes) }
    }
}

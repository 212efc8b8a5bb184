import NIOCore
import Synchronization

/// The bodies of small stored responses in memory, by content hash, so a hit on a small asset
/// reads no file. Bodies are content-addressed: a hash always names the same bytes, so nothing
/// here ever needs invalidating. Bounded by total bytes; the oldest insertions go first.
final class SmallBodyCache: Sendable {
    /// Bodies up to this size are kept.
    let maximumBodySize: Int64
    /// The most bytes kept in all.
    let capacity: Int

    private struct State {
        var bodies: [String: ByteBuffer] = [:]
        var order: [String] = []
        var orderStart = 0
        var bytes = 0
    }

    private let state = Mutex(State())

    init(maximumBodySize: Int64 = 128 * 1024, capacity: Int = 8 * 1024 * 1024) {
        self.maximumBodySize = maximumBodySize
        self.capacity = capacity
    }

    /// The body with this hash, if kept.
    func body(hash: String) -> ByteBuffer? {
        self.state.withLock { $0.bodies[hash] }
    }

    /// Keeps a body read from its file.
    func insert(_ body: ByteBuffer, hash: String) {
        guard body.readableBytes <= self.maximumBodySize, body.readableBytes <= self.capacity else { return }
        self.state.withLock { state in
            guard state.bodies[hash] == nil else { return }
            state.bodies[hash] = body
            state.order.append(hash)
            state.bytes += body.readableBytes
            while state.bytes > self.capacity, state.orderStart < state.order.count {
                let oldest = state.order[state.orderStart]
                state.orderStart += 1
                if let removed = state.bodies.removeValue(forKey: oldest) {
                    state.bytes -= removed.readableBytes
                }
            }
            // Compact the insertion order once half of it is spent.
            if state.orderStart > 1024, state.orderStart * 2 > state.order.count {
                state.order.removeFirst(state.orderStart)
                state.orderStart = 0
            }
        }
    }
}

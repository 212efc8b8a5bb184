import Synchronization

/// Hands out the plan's downloads in order to the workers, so the first game is ready first.
/// A lock, not an actor: taking the next item is no hop to another executor.
final class FetchQueue<Item: Sendable>: Sendable {
    private let items: [Item]
    private let next = Mutex(0)

    init(_ items: [Item]) {
        self.items = items
    }

    /// The next item with its position in the plan, or nil when all are taken.
    func take() -> (position: Int, item: Item)? {
        self.next.withLock { next in
            guard next < self.items.count else { return nil }
            defer { next += 1 }
            return (next, self.items[next])
        }
    }
}

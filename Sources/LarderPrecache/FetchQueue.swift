/// Hands out the plan's downloads in order to the workers, so the first game is ready first.
actor FetchQueue<Item: Sendable> {
    private let items: [Item]
    private var next = 0

    init(_ items: [Item]) {
        self.items = items
    }

    /// The next item with its position in the plan, or nil when all are taken.
    func take() -> (position: Int, item: Item)? {
        guard self.next < self.items.count else { return nil }
        defer { self.next += 1 }
        return (self.next, self.items[self.next])
    }
}

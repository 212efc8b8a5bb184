/// How many of a run's downloads are in flight at once: at most what
/// ``PrecacheOptions/transferLimit`` says at the time (never less than one), which may change as
/// the run goes. A download waiting for its share looks again every ``recheck``.
actor TransferShare {
    /// How often a waiting download asks the limit again (it changes with no event to wait for).
    static let recheck: Duration = .milliseconds(20)

    private let limit: @Sendable () -> Int?
    private var active = 0

    init(limit: @escaping @Sendable () -> Int?) {
        self.limit = limit
    }

    /// Waits until one more download may start, and counts it; a cancelled task does not wait.
    func enter() async {
        while let limit = self.limit(), self.active >= max(1, limit), !Task.isCancelled {
            try? await Task.sleep(for: Self.recheck)
        }
        self.active += 1
    }

    /// Counts a download as no longer in flight.
    func leave() {
        self.active -= 1
    }
}

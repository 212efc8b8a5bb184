/// How long a replay waits after consecutive failures, as the seed's sync engine does: a base
/// plus a step per failure after the first, capped (`queue.retry`; defaults 1.5 s, 1 s, 60 s).
public struct ReplayBackoff: Sendable, Hashable {
    /// The wait after the first failure.
    public var base: Duration
    /// What each further consecutive failure adds.
    public var step: Duration
    /// The longest wait.
    public var maximum: Duration

    /// The seed's back-off: 1.5 s, then 1 s more per failure, at most 60 s.
    public static let standard = ReplayBackoff(base: .milliseconds(1500), step: .seconds(1), maximum: .seconds(60))

    /// A back-off.
    public init(base: Duration, step: Duration, maximum: Duration) {
        self.base = base
        self.step = step
        self.maximum = maximum
    }

    /// The wait after `failures` consecutive failures: 1 gives `base`, 2 `base + step`, and so on,
    /// never more than `maximum`; none (zero) before any failure.
    public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        // Past the cap the step is not multiplied, so no count of failures can overflow.
        if self.step > .zero, Double(failures - 1) >= (self.maximum - self.base) / self.step {
            return self.maximum
        }
        return min(self.base + self.step * (failures - 1), self.maximum)
    }
}

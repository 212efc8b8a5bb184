import LarderHTTP
import LarderStore
import Logging
import Synchronization

/// Keeps the store within `--max-size`: after commits, evicts runtime entries least recently used
/// first, off the request path, one eviction at a time however many commits ask for one; and
/// bounds what one entry may take (``entryLimit``).
final class StoreBudget: Sendable {
    /// One entry may take at most the budget divided by this (docs/SERVING.md, "Bounds").
    static let entryShare: Int64 = 2

    private let store: Store
    private let budget: Int64?
    /// The most bytes one body may have to be stored, half the budget (nil without a budget): a
    /// larger one, or an endless one, is relayed but not stored (``StoringBody``), so one response
    /// can neither fill the disk nor evict more than half the cache.
    let entryLimit: Int64?
    private let usage: UsageRecorder
    private let logger: Logger
    private let requests: AsyncStream<Void>
    private let requestContinuation: AsyncStream<Void>.Continuation
    private let warningText = Mutex<String?>(nil)

    /// A budget of `budget` bytes (nil: unbounded, nothing is evicted).
    init(store: Store, budget: Int64?, usage: UsageRecorder, logger: Logger) {
        self.store = store
        self.budget = budget
        self.entryLimit = budget.map { max(1, $0 / Self.entryShare) }
        self.usage = usage
        self.logger = logger
        // Requests made while an eviction runs collapse into one more run.
        (self.requests, self.requestContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Set when precached entries alone exceed the budget (they are never evicted for runtime space).
    var warning: String? {
        self.warningText.withLock { $0 }
    }

    /// Whether a body of `length` bytes (nil: not known yet) is over ``entryLimit``.
    func isOverEntryLimit(_ length: Int64?) -> Bool {
        guard let length, let limit = self.entryLimit else { return false }
        return length > limit
    }

    /// Asks for an eviction pass soon. O(1), no I/O.
    func requestEviction() {
        guard self.budget != nil else { return }
        self.requestContinuation.yield()
    }

    /// Runs eviction passes as they are requested (one at start-up), until cancelled.
    func run() async {
        guard self.budget != nil else { return }
        self.requestEviction()
        for await _ in self.requests {
            await self.evict()
        }
    }

    /// One pass: flush last uses (so the order is current), then evict down to the budget.
    func evict() async {
        guard let budget = self.budget else { return }
        await self.usage.flush()
        do {
            let totals = try await self.store.totals()
            if totals.precachedBytes > budget {
                let text =
                    "Precached entries take \(ByteSize(bytes: totals.precachedBytes)), more than --max-size \(ByteSize(bytes: budget)); they are kept, and runtime entries get no space."
                let isNew = self.warningText.withLock { warning in
                    defer { warning = text }
                    return warning == nil
                }
                if isNew {
                    self.logger.warning("\(text)")
                }
            }
            guard totals.bytes > budget, totals.runtimeEntries > 0 else { return }
            let result = try await self.store.evictRuntime(toFitWithin: budget)
            self.logger.info(
                "evicted least recently used entries",
                metadata: ["entries": "\(result.removed)", "bytes": "\(result.freedBytes)", "budget": "\(budget)"]
            )
        } catch is CancellationError {
            // A shutdown, not a failure: the next start evicts.
        } catch {
            self.logger.warning("eviction failed", metadata: ["error": "\(error)"])
        }
    }
}

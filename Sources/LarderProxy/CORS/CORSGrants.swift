import Foundation
import LarderHTTP
import LarderStore
import Logging
import Synchronization

/// The CORS grants origins last gave page origins for each resource (``CORSGrant``), learned from
/// the answers Larder relays and kept in the store, so that Larder's answers in an origin's place
/// carry them after a restart too (docs/SERVING.md, "CORS when the origin cannot answer"). A grant
/// is per URL and method, never per origin: one learned on one URL never opens another. Reads
/// come from memory after the first; a grant goes to the store only when it changes.
final class CORSGrants: Sendable {
    /// A resource (method and URL) and a page origin it was granted to.
    struct Pair: Hashable, Sendable {
        /// `METHOD URL`, the URL as its cache key (``CacheKey/rawValue``); `HEAD` counts as `GET`.
        var resource: String
        var page: String

        /// The pair for a request with `method` to `key` from `page`; with `preflight`, for the
        /// origin's answer to a preflight asking for that method (`OPTIONS METHOD URL`), kept apart:
        /// it vouches for Larder's own answers to the request, never for a stored copy's.
        init(method: String, key: CacheKey, page: String, preflight: Bool = false) {
            self.resource = (preflight ? "OPTIONS " : "") + (method == "HEAD" ? "GET" : method) + " " + key.rawValue
            self.page = page
        }
    }

    /// The most pairs remembered in memory (the store keeps ``Store/maximumCORSGrants``).
    static let memoryLimit = 4_096

    private let store: Store
    private let logger: Logger
    /// Known pairs; `.some(nil)` for a pair the store was asked about and holds nothing for.
    private let memory = Mutex(LeastRecentlyUsedCache<Pair, CORSGrant?>(capacity: CORSGrants.memoryLimit))

    init(store: Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Remembers `grant` for `pair`; true when it is new or changed (and should be stored).
    func remember(_ grant: CORSGrant, for pair: Pair) -> Bool {
        self.memory.withLock { memory in
            if case .some(.some(let known)) = memory.value(for: pair), known == grant { return false }
            memory.insert(grant, for: pair)
            return true
        }
    }

    /// Stores `grant` for `pair` (after ``remember(_:for:)`` said it changed).
    func store(_ grant: CORSGrant, for pair: Pair, at date: Date) async {
        do {
            try await self.store.recordCORSGrant(grant, target: pair.resource, page: pair.page, at: date)
        } catch {
            self.logger.warning(
                "cannot keep a CORS grant", metadata: ["resource": "\(pair.resource)", "page": "\(pair.page)", "error": "\(error)"])
        }
    }

    /// Whether a grant for `pair` may be known: false only when memory knows there is none, so
    /// that an answer granting nothing costs no store write for a pair never granted.
    func mayKnow(_ pair: Pair) -> Bool {
        self.memory.withLock { memory in
            if case .some(nil) = memory.value(for: pair) { return false }
            return true
        }
    }

    /// Forgets any grant for `pair`: the origin refused what it asked. The store is written only
    /// when it holds one (a pair never granted costs a read, once: memory then knows).
    func forget(_ pair: Pair) async {
        let known = self.memory.withLock { memory in
            defer { memory.insert(CORSGrant?.none, for: pair) }
            return memory.value(for: pair)
        }
        do {
            switch known {
            case .some(.none):
                return
            case .none:
                guard try await self.store.corsGrant(target: pair.resource, page: pair.page) != nil else { return }
            case .some(.some):
                break
            }
            try await self.store.removeCORSGrant(target: pair.resource, page: pair.page)
        } catch {
            self.logger.warning("cannot forget a CORS grant", metadata: ["resource": "\(pair.resource)", "error": "\(error)"])
        }
    }

    /// The grant the origin last gave `pair.page` for `pair.resource`, if one is known.
    func grant(for pair: Pair) async -> CORSGrant? {
        if let known = self.memory.withLock({ $0.value(for: pair) }) { return known }
        let stored: CORSGrant?
        do {
            stored = try await self.store.corsGrant(target: pair.resource, page: pair.page)
        } catch {
            self.logger.warning("cannot read a CORS grant", metadata: ["resource": "\(pair.resource)", "error": "\(error)"])
            return nil
        }
        self.memory.withLock { memory in
            if memory.value(for: pair) == nil {
                memory.insert(stored, for: pair)
            }
        }
        return stored
    }
}

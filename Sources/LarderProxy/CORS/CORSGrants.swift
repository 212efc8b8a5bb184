import Foundation
import LarderHTTP
import LarderStore
import Logging
import Synchronization

/// The CORS grants origins last gave page origins (``CORSGrant``), learned from the answers
/// Larder relays and kept in the store, so that Larder's answers in an origin's place carry them
/// after a restart too (docs/SERVING.md, "CORS when the origin cannot answer"). Reads come from
/// memory after the first; a grant goes to the store only when it changes.
final class CORSGrants: Sendable {
    /// An origin and a page origin it grants.
    struct Pair: Hashable, Sendable {
        var target: String
        var page: String
    }

    /// The most pairs remembered in memory (the store keeps ``Store/maximumCORSGrants``).
    static let memoryLimit = 4_096

    private let store: Store
    private let logger: Logger
    /// Known pairs; `.some(nil)` for a pair the store was asked about and holds nothing for.
    private let memory = Mutex<[Pair: CORSGrant?]>([:])

    init(store: Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Remembers `grant` for `pair`; true when it is new or changed (and should be stored).
    func remember(_ grant: CORSGrant, for pair: Pair) -> Bool {
        self.memory.withLock { memory in
            if case .some(.some(let known)) = memory[pair], known == grant { return false }
            if memory.count >= Self.memoryLimit { memory.removeAll(keepingCapacity: true) }
            memory[pair] = .some(grant)
            return true
        }
    }

    /// Stores `grant` for `pair` (after ``remember(_:for:)`` said it changed).
    func store(_ grant: CORSGrant, for pair: Pair, at date: Date) async {
        do {
            try await self.store.recordCORSGrant(grant, target: pair.target, page: pair.page, at: date)
        } catch {
            self.logger.warning(
                "cannot keep a CORS grant", metadata: ["origin": "\(pair.target)", "page": "\(pair.page)", "error": "\(error)"])
        }
    }

    /// The grant `pair.target` last gave `pair.page`, if one is known.
    func grant(for pair: Pair) async -> CORSGrant? {
        if let known = self.memory.withLock({ $0[pair] }) { return known }
        let stored: CORSGrant?
        do {
            stored = try await self.store.corsGrant(target: pair.target, page: pair.page)
        } catch {
            self.logger.warning("cannot read a CORS grant", metadata: ["origin": "\(pair.target)", "error": "\(error)"])
            return nil
        }
        self.memory.withLock { memory in
            if memory[pair] == nil {
                if memory.count >= Self.memoryLimit { memory.removeAll(keepingCapacity: true) }
                memory[pair] = .some(stored)
            }
        }
        return stored
    }
}

import Foundation
import LarderHTTP
import LarderStore
import Synchronization

/// Freshness of stored response heads, computed once per head rather than on every hit (parsing
/// dates and `Cache-Control` is most of a hit's own work). A head is named by its key, body and
/// response time: a refresh or a new body is a new head. Bounded; starts over when full.
final class FreshnessMemo: Sendable {
    private struct HeadID: Hashable {
        var key: String
        var bodyHash: String
        var responseTime: Date
    }

    static let capacity = 4096
    private let memo = Mutex<[HeadID: ResponseFreshness]>([:])

    func freshness(of entry: CachedEntry) -> ResponseFreshness {
        let id = HeadID(key: entry.key.rawValue, bodyHash: entry.bodyHash, responseTime: entry.responseTime)
        if let known = self.memo.withLock({ $0[id] }) {
            return known
        }
        var computed = ResponseFreshness(
            status: entry.status,
            header: { name in entry.headers.filter { $0.hasName(name) }.map(\.value) },
            requestTime: entry.requestTime,
            responseTime: entry.responseTime
        )
        // Every path that judges a stored copy (both hit paths, the fallback) reads it here, so
        // none serves a page kept against its no-store while the origin answers.
        computed.keptNoStore = KeptNoStore.isKept(
            headers: entry.headers, varyRequestHeaders: entry.varyRequestHeaders, precached: entry.kind == .precached,
            keyed: entry.key.isKeyed)
        self.memo.withLock { memo in
            if memo.count >= Self.capacity {
                memo.removeAll(keepingCapacity: true)
            }
            memo[id] = computed
        }
        return computed
    }
}

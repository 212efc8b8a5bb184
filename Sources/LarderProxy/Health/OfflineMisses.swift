import Foundation
import LarderHTTP
import LarderIntrospection
import NIOHTTP1
import Synchronization

/// Requests the cache could not answer because the origin could not (unreachable, timed out,
/// backing off, or offline mode) and nothing stored could be used: the URLs to precache so that an
/// app works offline. Kept in memory since the proxy started, for /dev/offline.
///
/// One record per endpoint: a method and a URL without the query parameters ``grouping`` ignores
/// (``OfflineMatch/endpoint(of:)``: the cache-busters an app adds to each call, so one API
/// missed a hundred times is one row). A repeat counts and moves it to the front, newest first,
/// at most ``capacity`` of them: when full, the endpoint missed longest ago gives way. URLs are at most
/// `HTTPURL.maximumLength` bytes and referrers are cut to ``maximumRefererLength``, so memory stays
/// flat however long the origin is down.
public final class OfflineMisses: Sendable {
    /// Why the origin could not answer.
    public typealias Reason = OfflineMissReason
    /// One endpoint the cache could not answer.
    public typealias Miss = OfflineMiss

    private struct State {
        /// By URL, with the sequence number of its latest record.
        var misses: [String: (miss: Miss, sequence: UInt64)] = [:]
        var nextSequence: UInt64 = 0
    }

    /// How many endpoints are kept.
    public let capacity: Int
    /// What of a query tells endpoints apart.
    public let grouping: OfflineMatch
    /// The longest `Referer` kept, in bytes of UTF-8 (a longer one is cut).
    public static let maximumRefererLength = 2048
    private let state = Mutex(State())

    /// Creates an empty record keeping at most `capacity` endpoints, told apart by `grouping`.
    public init(capacity: Int = 200, grouping: OfflineMatch = .ignoreCacheBusters) {
        precondition(capacity > 0, "an offline miss record keeps at least one URL")
        self.capacity = capacity
        self.grouping = grouping
    }

    /// Records one request for `url` that could not be answered. `causes` are the `+` parts of
    /// the answer's `Cache-Status` detail after the reason; `declaredRequest` names a declared
    /// request whose answer was withheld from it.
    public func record(
        url: HTTPURL, method: String, referer: String?, reason: Reason, upgrade: String? = nil, note: String? = nil,
        causes: [String] = [], methodNotStored: Bool = false, declaredRequest: String? = nil, now: Date
    ) {
        var full = url
        full.fragment = nil
        let text = full.absoluteString
        let endpoint = self.grouping.endpoint(of: url).absoluteString
        let key = method + " " + endpoint
        let referer = referer.map { String(decoding: $0.utf8.prefix(Self.maximumRefererLength), as: UTF8.self) }
        let causes = causes.isEmpty ? nil : causes
        self.state.withLock { state in
            state.nextSequence += 1
            if var known = state.misses[key]?.miss {
                known.count += 1
                known.url = text
                known.referer = referer ?? known.referer
                known.reason = reason
                known.upgrade = upgrade
                known.note = note
                known.causes = causes
                known.methodNotStored = methodNotStored ? true : nil
                known.declaredRequest = declaredRequest
                known.lastSeen = max(known.lastSeen, now)
                state.misses[key] = (known, state.nextSequence)
                return
            }
            if state.misses.count >= self.capacity, let oldest = state.misses.min(by: { $0.value.sequence < $1.value.sequence })?.key {
                state.misses.removeValue(forKey: oldest)
            }
            let miss = Miss(
                url: text, endpoint: endpoint, origin: url.origin, method: method, referer: referer, reason: reason, count: 1,
                firstSeen: now, lastSeen: now, upgrade: upgrade, note: note, causes: causes, methodNotStored: methodNotStored ? true : nil,
                declaredRequest: declaredRequest)
            state.misses[key] = (miss, state.nextSequence)
        }
    }

    /// Records `request` when its answer (`cacheStatus`) is an offline miss; any other answer is
    /// ignored.
    func record(_ request: HTTPRequestHead, url: HTTPURL, cacheStatus: CacheStatus?, declaredRequest: String? = nil, now: Date) {
        guard let reason = Reason(cacheStatus: cacheStatus) else { return }
        let methodNotStored = cacheStatus?.forward == .method
        self.record(
            url: url, method: request.method.wireName, referer: request.headers.first(name: "referer"), reason: reason,
            upgrade: WebSocketHandshake.isUpgrade(request) ? "websocket" : nil,
            note: methodNotStored ? Self.uncachedMethodNote(request.method.wireName) : nil, causes: Reason.causes(cacheStatus),
            methodNotStored: methodNotStored, declaredRequest: declaredRequest, now: now)
    }

    /// Why a request of `method` that no route keys or queues had nothing to answer it.
    static func uncachedMethodNote(_ method: String) -> String {
        "\(method) requests are not stored on defaults, so Larder has no copy to answer with: a read sent as \(method) is answered offline once a keyed route (cacheMethods) covers its URL and it was sent online (docs/SERVING.md, \"Requests with bodies\")."
    }

    /// Forgets the endpoint of `url`, of any method (it was added to precache).
    public func forget(url: String) {
        guard let parsed = try? HTTPURL(parsing: url) else { return }
        let endpoint = self.grouping.endpoint(of: parsed).absoluteString
        self.state.withLock { state in
            state.misses = state.misses.filter { $0.value.miss.endpoint != endpoint }
        }
    }

    /// Every URL kept, the latest missed first.
    public func snapshot() -> [Miss] {
        self.state.withLock { state in
            state.misses.values.sorted { $0.sequence > $1.sequence }.map(\.miss)
        }
    }
}

import Foundation
import LarderHTTP
import NIOHTTP1
import Synchronization

/// Requests the cache could not answer because the origin could not (unreachable, timed out,
/// backing off, or offline mode) and nothing stored could be used: the URLs to precache so that an
/// app works offline. Kept in memory since the proxy started, for /dev/offline.
///
/// One record per URL (a repeat counts and moves it to the front), newest first, at most
/// ``capacity`` of them: when full, the URL missed longest ago gives way. URLs are at most
/// `HTTPURL.maximumLength` bytes and referrers are cut to ``maximumRefererLength``, so memory stays
/// flat however long the origin is down.
public final class OfflineMisses: Sendable {
    /// Why the origin could not answer: the `Cache-Status` detail of the error answer.
    public enum Reason: String, Sendable, Codable, CaseIterable {
        /// Offline mode: the network is never contacted.
        case offline
        /// The connection failed (DNS, refused, reset, TLS) or timed out.
        case upstreamUnreachable = "upstream-unreachable"
        /// The origin failed repeatedly and is not tried for a while.
        case upstreamBackoff = "upstream-backoff"
        /// No answer came within the network timeout.
        case networkTimeout = "network-timeout"

        /// The reason of an answer that is an offline miss: an error answer neither from the cache
        /// nor from upstream whose detail says (first, before any `+`) the origin could not answer;
        /// nil for any other answer. A stream or tunnel Larder lets by is no cache matter, except a
        /// WebSocket refused because its origin could not be reached (`upstream-unreachable+websocket`):
        /// that is a miss of the app's too. This is the one rule for what an offline miss is
        /// (``ProxyStatistics/Outcome`` counts by it).
        public init?(cacheStatus: CacheStatus?) {
            guard let cacheStatus, !cacheStatus.hit, cacheStatus.forwardStatus == nil, let detail = cacheStatus.detail else {
                return nil
            }
            let parts = detail.split(separator: "+")
            guard cacheStatus.forward != .bypass || parts.dropFirst().contains("websocket"), let first = parts.first else { return nil }
            self.init(rawValue: String(first))
        }
    }

    /// One URL the cache could not answer.
    public struct Miss: Sendable, Codable, Hashable {
        /// The requested URL.
        public var url: String
        /// Its origin (`scheme://host[:port]`).
        public var origin: String
        /// The method of the latest request (only GET and HEAD can be precached).
        public var method: String
        /// The `Referer` of the latest request, if it had one.
        public var referer: String?
        /// Why the latest request could not be answered.
        public var reason: Reason
        /// How many requests for the URL were not answered.
        public var count: Int
        /// When the first was.
        public var firstSeen: Date
        /// When the latest was.
        public var lastSeen: Date
        /// The protocol the latest request asked to switch to (`websocket`): a stream the origin
        /// could not open, which no copy can stand in for; nil for a plain request.
        public var upgrade: String?
        /// What the miss was, when its method is one Larder does not store on defaults (a POST that
        /// no route keys): not a network problem but a request with no copy to answer it.
        public var note: String?
    }

    private struct State {
        /// By URL, with the sequence number of its latest record.
        var misses: [String: (miss: Miss, sequence: UInt64)] = [:]
        var nextSequence: UInt64 = 0
    }

    /// How many URLs are kept.
    public let capacity: Int
    /// The longest `Referer` kept, in bytes of UTF-8 (a longer one is cut).
    public static let maximumRefererLength = 2048
    private let state = Mutex(State())

    /// Creates an empty record keeping at most `capacity` URLs.
    public init(capacity: Int = 200) {
        precondition(capacity > 0, "an offline miss record keeps at least one URL")
        self.capacity = capacity
    }

    /// Records one request for `url` that could not be answered.
    public func record(
        url: HTTPURL, method: String, referer: String?, reason: Reason, upgrade: String? = nil, note: String? = nil, now: Date
    ) {
        var key = url
        key.fragment = nil
        let text = key.absoluteString
        let referer = referer.map { String(decoding: $0.utf8.prefix(Self.maximumRefererLength), as: UTF8.self) }
        self.state.withLock { state in
            state.nextSequence += 1
            if var known = state.misses[text]?.miss {
                known.count += 1
                known.method = method
                known.referer = referer ?? known.referer
                known.reason = reason
                known.upgrade = upgrade
                known.note = note
                known.lastSeen = max(known.lastSeen, now)
                state.misses[text] = (known, state.nextSequence)
                return
            }
            if state.misses.count >= self.capacity, let oldest = state.misses.min(by: { $0.value.sequence < $1.value.sequence })?.key {
                state.misses.removeValue(forKey: oldest)
            }
            let miss = Miss(
                url: text, origin: url.origin, method: method, referer: referer, reason: reason, count: 1, firstSeen: now, lastSeen: now,
                upgrade: upgrade, note: note)
            state.misses[text] = (miss, state.nextSequence)
        }
    }

    /// Records `request` when its answer (`cacheStatus`) is an offline miss; any other answer is
    /// ignored.
    func record(_ request: HTTPRequestHead, url: HTTPURL, cacheStatus: CacheStatus?, now: Date) {
        guard let reason = Reason(cacheStatus: cacheStatus) else { return }
        self.record(
            url: url, method: request.method.wireName, referer: request.headers.first(name: "referer"), reason: reason,
            upgrade: WebSocketHandshake.isUpgrade(request) ? "websocket" : nil,
            note: cacheStatus?.forward == .method ? Self.uncachedMethodNote(request.method.wireName) : nil, now: now)
    }

    /// Why a request of `method` that no route keys or queues had nothing to answer it.
    static func uncachedMethodNote(_ method: String) -> String {
        "\(method) requests are not stored on defaults, so Larder has no copy to answer with: a read sent as \(method) is answered offline once a keyed route (cacheMethods) covers its URL and it was sent online (docs/SERVING.md, \"Requests with bodies\")."
    }

    /// Forgets `url` (it was added to precache).
    public func forget(url: String) {
        _ = self.state.withLock { $0.misses.removeValue(forKey: url) }
    }

    /// Every URL kept, the latest missed first.
    public func snapshot() -> [Miss] {
        self.state.withLock { state in
            state.misses.values.sorted { $0.sequence > $1.sequence }.map(\.miss)
        }
    }
}

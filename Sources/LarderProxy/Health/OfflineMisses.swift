import Foundation
import LarderHTTP
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

        /// The `+` parts of the detail after the reason: what else the answer says of the miss.
        public static func causes(_ cacheStatus: CacheStatus?) -> [String] {
            guard let detail = cacheStatus?.detail else { return [] }
            return detail.split(separator: "+").dropFirst().map(String.init)
        }
    }

    /// One endpoint the cache could not answer.
    public struct Miss: Sendable, Codable, Hashable {
        /// The latest requested URL.
        public var url: String
        /// The URL the record stands for: ``url`` without what ``grouping`` ignores of its query.
        public var endpoint: String?
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
        /// no route keys): not a network problem but a request with no copy to answer it. The
        /// report replaces it with what happened in a user's words (`LarderDevOffline`'s
        /// `OfflineMissNote`).
        public var note: String?
        /// What else the latest error answer's `Cache-Status` detail said, after the reason: its
        /// `+` parts (`websocket`, `declared-withheld`, `health-check`, `body-not-near`...), from
        /// which the report writes the note; nil when there were none.
        public var causes: [String]?
        /// Whether the latest request's method is one Larder does not store on defaults
        /// (`fwd=method`): a read sent so is offered **Answer offline**.
        public var methodNotStored: Bool?
        /// The declared request (config `requests`) whose stored answer was withheld from the
        /// latest request, because its page is not among the `pageOrigins` listed for it.
        public var declaredRequest: String?
        /// The fix the user applied to it, and whether it missed since; set by the report.
        public var fix: OfflineMissFix?
    }

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

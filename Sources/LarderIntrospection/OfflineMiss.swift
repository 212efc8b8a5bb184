import Foundation
import LarderHTTP

/// Why the origin could not answer: the `Cache-Status` detail of the error answer.
public enum OfflineMissReason: String, Sendable, Codable, CaseIterable {
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
    /// (``RequestOutcome`` counts by it).
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
public struct OfflineMiss: Sendable, Codable, Hashable {
    /// The latest requested URL.
    public var url: String
    /// The URL the record stands for: ``url`` without what the proxy's grouping (`OfflineMisses` in LarderProxy) ignores of its query.
    public var endpoint: String?
    /// Its origin (`scheme://host[:port]`).
    public var origin: String
    /// The method of the latest request (only GET and HEAD can be precached).
    public var method: String
    /// The `Referer` of the latest request, if it had one.
    public var referer: String?
    /// Why the latest request could not be answered.
    public var reason: OfflineMissReason
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

    /// A record.
    public init(
        url: String, endpoint: String?, origin: String, method: String, referer: String?, reason: OfflineMissReason, count: Int,
        firstSeen: Date, lastSeen: Date, upgrade: String? = nil, note: String? = nil, causes: [String]? = nil, methodNotStored: Bool? = nil,
        declaredRequest: String? = nil, fix: OfflineMissFix? = nil
    ) {
        self.url = url
        self.endpoint = endpoint
        self.origin = origin
        self.method = method
        self.referer = referer
        self.reason = reason
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.upgrade = upgrade
        self.note = note
        self.causes = causes
        self.methodNotStored = methodNotStored
        self.declaredRequest = declaredRequest
        self.fix = fix
    }
}

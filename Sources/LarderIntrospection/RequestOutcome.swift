import Foundation
import LarderHTTP

/// How one answer is counted.
public enum RequestOutcome: String, Sendable, Codable, CaseIterable {
    /// Answered from the cache (fresh, precached, or offline).
    case hit
    /// Fetched from upstream (stored or not).
    case miss
    /// Served from the cache because upstream failed, was backing off or too slow.
    case stale
    /// Not answered: the origin could not answer (unreachable, timed out, backing off, offline
    /// mode) and nothing stored could be used (an ``OfflineMiss``). A miss, not an error.
    case offlineMiss = "offline-miss"
    /// Any other error answer (refusals, a `cache-only` or `only-if-cached` miss).
    case error
    /// Not a cache matter: tunnels, Larder's own pages.
    case bypass

    /// Classifies an answer by its status and `Cache-Status`.
    public static func classify(status: Int, cacheStatus: CacheStatus?) -> RequestOutcome {
        guard let cacheStatus else { return status >= 400 ? .error : .bypass }
        if cacheStatus.hit {
            switch cacheStatus.detail {
            case "upstream-unreachable", "upstream-backoff", "network-timeout": return .stale
            case let detail? where detail.hasPrefix("upstream-"): return .stale
            default: return .hit
            }
        }
        if OfflineMissReason(cacheStatus: cacheStatus) != nil { return .offlineMiss }
        // A stream or tunnel upstream answered (`fwd-status`) is relayed as it is, not a failure of Larder's.
        if cacheStatus.forward == .bypass { return status >= 400 && cacheStatus.forwardStatus == nil ? .error : .bypass }
        return cacheStatus.forwardStatus == nil && status >= 400 ? .error : .miss
    }
}

/// One answered request.
public struct RecentRequest: Sendable, Codable, Hashable {
    /// When it was answered.
    public var time: Date
    /// The request method.
    public var method: String
    /// The request target (absolute URL, or a path for Larder's own pages).
    public var url: String
    /// The status sent.
    public var status: Int
    /// The `Cache-Status` sent, if any.
    public var cacheStatus: String?
    /// How it was counted.
    public var outcome: RequestOutcome
    /// Milliseconds from the request head to the answer's end.
    public var milliseconds: Double

    /// A request as answered.
    public init(time: Date, method: String, url: String, status: Int, cacheStatus: String?, outcome: RequestOutcome, milliseconds: Double) {
        self.time = time
        self.method = method
        self.url = url
        self.status = status
        self.cacheStatus = cacheStatus
        self.outcome = outcome
        self.milliseconds = milliseconds
    }
}

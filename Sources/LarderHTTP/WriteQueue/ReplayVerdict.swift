/// What the outcome of replaying a queued write means for it (docs/SERVING.md, "Queued writes").
public enum ReplayVerdict: Sendable, Equatable {
    /// The origin took it (2xx, 3xx): remove it.
    case delivered
    /// The origin refused it for good (4xx but 408, 425 and 429): keep it, show it, never retry
    /// it automatically. The text says why.
    case deadLetter(String)
    /// Try again later (408, 425, 429, 5xx, network errors). The text says why.
    case retry(String)

    /// The statuses that say "later", not "never": Request Timeout, Too Early, Too Many Requests.
    static let retriedClientErrors: Set<Int> = [408, 425, 429]

    /// The verdict on a response with `status`.
    public static func classify(status: Int) -> ReplayVerdict {
        switch status {
        case 200..<400:
            return .delivered
        case 400..<500 where !Self.retriedClientErrors.contains(status):
            return .deadLetter("the origin answered \(status)")
        default:
            // 1xx as a final answer, or past 599, is broken, not a refusal: retried until retention ends.
            return .retry("the origin answered \(status)")
        }
    }

    /// The verdict when no response came: always retried.
    public static func networkError(_ description: String) -> ReplayVerdict {
        .retry(description)
    }
}

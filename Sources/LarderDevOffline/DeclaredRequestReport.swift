import Foundation
import LarderStore

/// One declared request as /dev/offline, its JSON and `larder status` show it.
public struct DeclaredRequestReport: Sendable, Codable {
    public var name: String
    public var method: String
    /// The URL as last sent (placeholders replaced); empty before the first run.
    public var url: String
    /// `fresh` (the last run stored an answer), `failing` (it did not; an older answer may still
    /// be stored, see `lastSuccess`), or `never` (no run yet).
    public var state: String
    public var lastSuccess: Date?
    /// Seconds since `lastSuccess`.
    public var ageSeconds: Int?
    public var lastAttempt: Date?
    public var nextRun: Date?
    public var lastStatus: Int?
    public var lastError: String?
    public var consecutiveFailures: Int
    /// The stored answer's body size.
    public var bodySize: Int64?
    /// When the app's own body of it was learned (docs/SERVING.md, "Following the app's
    /// query"); nil while it sends the config's.
    public var learnedAt: Date?
    /// Seconds since `learnedAt`.
    public var learnedAgeSeconds: Int?
    /// The page whose request it was learned from.
    public var learnedFrom: String?

    /// The report of `record` at `now`, with the body learned for it, if any.
    public init(_ record: DeclaredRequestRecord, learned: LearnedBodyRecord? = nil, now: Date) {
        self.learnedAt = learned?.learnedAt
        self.learnedAgeSeconds = learned.map { max(0, Int(now.timeIntervalSince($0.learnedAt))) }
        self.learnedFrom = learned?.source
        self.name = record.name
        self.method = record.method
        self.url = record.url
        switch (record.lastAttempt, record.lastError) {
        case (nil, _): self.state = "never"
        case (_, nil): self.state = "fresh"
        default: self.state = "failing"
        }
        self.lastSuccess = record.lastSuccess
        self.ageSeconds = record.lastSuccess.map { max(0, Int(now.timeIntervalSince($0))) }
        self.lastAttempt = record.lastAttempt
        self.nextRun = record.nextRun
        self.lastStatus = record.lastStatus
        self.lastError = record.lastError
        self.consecutiveFailures = record.consecutiveFailures
        self.bodySize = record.bodySize
    }
}

import Foundation

/// What became of a precache request.
public enum PrecacheSubmission: Sendable, Hashable {
    /// Queued as job `id`; `problems` are the lines that were left out.
    case queued(id: String, problems: [String])
    /// No line names anything to precache.
    case nothingToPrecache(problems: [String])
    /// A line names `url`, which the caller does not allow.
    case refused(url: String)
}

/// A job's state, as `GET /dev/offline/precache/ID` reports it.
public struct PrecacheJobStatus: Sendable, Encodable {
    /// Where the proxy's precache API takes a job (`POST`) and reports one (`GET` at `apiPath/ID`).
    public static let apiPath = "/dev/offline/precache"

    /// The job id.
    public var id: String
    /// `queued`, `running` or `finished`.
    public var state: String
    /// The origin of the web page that asked, if a page did.
    public var requestedBy: String?
    /// Files to download (known once planned).
    public var filesToFetch: Int
    /// Files done so far.
    public var filesDone: Int
    /// Files failed so far.
    public var filesFailed: Int
    /// Bytes downloaded so far.
    public var bytes: Int64
    /// The final report, once finished.
    public var report: (any Encodable & Sendable)?

    /// Creates a status.
    public init(
        id: String,
        state: String,
        requestedBy: String?,
        filesToFetch: Int,
        filesDone: Int,
        filesFailed: Int,
        bytes: Int64,
        report: (any Encodable & Sendable)?
    ) {
        self.id = id
        self.state = state
        self.requestedBy = requestedBy
        self.filesToFetch = filesToFetch
        self.filesDone = filesDone
        self.filesFailed = filesFailed
        self.bytes = bytes
        self.report = report
    }

    private enum CodingKeys: String, CodingKey {
        case id, state, requestedBy, filesToFetch, filesDone, filesFailed, bytes, report
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id, forKey: .id)
        try container.encode(self.state, forKey: .state)
        try container.encodeIfPresent(self.requestedBy, forKey: .requestedBy)
        try container.encode(self.filesToFetch, forKey: .filesToFetch)
        try container.encode(self.filesDone, forKey: .filesDone)
        try container.encode(self.filesFailed, forKey: .filesFailed)
        try container.encode(self.bytes, forKey: .bytes)
        if let report = self.report {
            try container.encode(report, forKey: .report)
        }
    }
}

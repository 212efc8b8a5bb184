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

/// Where the proxy's precache API takes a job (`POST`) and reports one (`GET` at `path/ID`).
public enum PrecacheAPIPath {
    public static let path = "/dev/offline/precache"
}

/// A job's state, as `GET /dev/offline/precache/ID` reports it; `Report` is the final report's
/// type (LarderPrecache's `PrecacheReport` where the jobs run, ``EncodedReport`` where only its
/// JSON matters).
public struct PrecacheJobStatus<Report: Encodable & Sendable>: Sendable, Encodable {
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
    public var report: Report?

    /// Creates a status.
    public init(
        id: String,
        state: String,
        requestedBy: String?,
        filesToFetch: Int,
        filesDone: Int,
        filesFailed: Int,
        bytes: Int64,
        report: Report?
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

    /// The same status, its report as `transform` makes it.
    public func mapReport<Other>(_ transform: (Report) -> Other) -> PrecacheJobStatus<Other> {
        PrecacheJobStatus<Other>(
            id: self.id, state: self.state, requestedBy: self.requestedBy, filesToFetch: self.filesToFetch, filesDone: self.filesDone,
            filesFailed: self.filesFailed, bytes: self.bytes, report: self.report.map(transform))
    }
}

extension PrecacheJobStatus: Decodable where Report: Decodable {}
extension PrecacheJobStatus: Equatable where Report: Equatable {}
extension PrecacheJobStatus: Hashable where Report: Hashable {}

/// A report of a type the reader does not know, encoded as its own type encodes it.
public struct EncodedReport: Encodable, Sendable {
    public let value: any Encodable & Sendable

    public init(_ value: any Encodable & Sendable) {
        self.value = value
    }

    public func encode(to encoder: any Encoder) throws {
        try self.value.encode(to: encoder)
    }
}

import LarderHTTP
import LarderStore

/// The dated files a series manifest lists, resolved against the manifest URL.
///
/// Two shapes are read, told apart by their member:
/// - `{"last_updated": "...", "available_puzzles": ["2025-10-26.bin", ...]}` (WordErase's): each
///   entry's date is the first `YYYY-MM-DD` or `YYYYMMDD` in it;
/// - `{"files": [{"url": "2025-10-26.bin", "date": "2025-10-26"}, ...]}` (the declared form): `date`
///   says the day; without it, the day is read from `url` as above.
///
/// Entries resolve against the manifest URL. An entry with no date, another origin (unless allowed),
/// a bad URL, or a day an earlier entry already has is refused, with the reason; the others count.
public struct SeriesListing: Sendable, Hashable {
    /// The files, one per day, in manifest order.
    public var files: [SeriesFile]
    /// Entries left out, and why.
    public var refused: [RefusedEntry]

    /// Creates a listing.
    public init(files: [SeriesFile], refused: [RefusedEntry] = []) {
        self.files = files
        self.refused = refused
    }

    /// Parses a fetched series manifest; the error names the manifest and the problem.
    public static func parse(
        status: Int,
        contentType: String?,
        body: [UInt8],
        manifestURL: HTTPURL,
        allowCrossOrigin: Bool,
        queryFilter: QueryParameterFilter = .default
    ) throws(ManifestError) -> SeriesListing {
        let document = try PrecacheManifest.document(status: status, contentType: contentType, body: body, manifestURL: manifestURL)
        func failure(_ problem: String) -> ManifestError {
            ManifestError(manifestURL: manifestURL, problem: problem)
        }
        let shapes = #"expected {"available_puzzles": ["2025-10-26.bin", ...]} or {"files": [{"url": "...", "date": "2025-10-26"}, ...]}"#
        var entries: [(reference: String, date: String?)] = []
        let member: String
        if let available = document[member: "available_puzzles"] {
            member = "available_puzzles"
            guard case .array(let items) = available.kind else {
                throw failure("available_puzzles is \(available.typeDescription), not an array")
            }
            for (index, item) in items.enumerated() {
                guard case .string(let name) = item.kind else {
                    throw failure("available_puzzles[\(index)] is \(item.typeDescription), not a string")
                }
                entries.append((name, nil))
            }
        } else if let files = document[member: "files"] {
            member = "files"
            guard case .array(let items) = files.kind else {
                throw failure("files is \(files.typeDescription), not an array")
            }
            for (index, item) in items.enumerated() {
                guard case .object = item.kind, let url = item[member: "url"], case .string(let reference) = url.kind else {
                    throw failure(#"files[\#(index)] is not an object with a "url" string (a series manifest's files are {"url", "date"})"#)
                }
                var date: String?
                if let value = item[member: "date"] {
                    guard case .string(let text) = value.kind else {
                        throw failure("files[\(index)].date is \(value.typeDescription), not a string")
                    }
                    date = text
                }
                entries.append((reference, date))
            }
        } else {
            throw failure("is not a series manifest: \(shapes)")
        }
        guard entries.count <= PrecacheManifest.maximumEntryCount else {
            throw failure("\(member) has \(entries.count) entries; the limit is \(PrecacheManifest.maximumEntryCount)")
        }

        var files: [SeriesFile] = []
        var refused: [RefusedEntry] = []
        var seenDays: Set<CalendarDay> = []
        for entry in entries {
            let day: CalendarDay
            if let date = entry.date {
                guard let parsed = CalendarDay(parsing: date) else {
                    refused.append(RefusedEntry(url: entry.reference, reason: "its date \(date.debugDescription) is not YYYY-MM-DD"))
                    continue
                }
                day = parsed
            } else {
                guard let parsed = CalendarDay.first(in: entry.reference) else {
                    refused.append(RefusedEntry(url: entry.reference, reason: "no date (YYYY-MM-DD or YYYYMMDD) in its name"))
                    continue
                }
                day = parsed
            }
            switch PrecacheManifest.resolve(
                entry.reference, against: manifestURL, manifestURL: manifestURL, allowCrossOrigin: allowCrossOrigin)
            {
            case .refused(let refusal):
                refused.append(refusal)
            case .url(let url):
                guard seenDays.insert(day).inserted else {
                    refused.append(RefusedEntry(url: url.absoluteString, reason: "another entry already has the day \(day)"))
                    continue
                }
                files.append(SeriesFile(day: day, url: url, key: CacheKey(url: url, filter: queryFilter)))
            }
        }
        return SeriesListing(files: files, refused: refused)
    }
}

/// One day of a series: its date and where its file is.
public struct SeriesFile: Sendable, Hashable {
    /// The day the file is for.
    public var day: CalendarDay
    /// Where it is.
    public var url: HTTPURL
    /// The key it is stored under.
    public var key: CacheKey

    /// Creates a series file.
    public init(day: CalendarDay, url: HTTPURL, key: CacheKey) {
        self.day = day
        self.url = url
        self.key = key
    }
}

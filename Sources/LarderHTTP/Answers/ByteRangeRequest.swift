import Foundation

/// A `Range: bytes=...` request header (RFC 9110 section 14.1.2), to answer from a full body.
///
/// Larder answers a single range with a 206 and an unsatisfiable one with a 416; it answers
/// several ranges with the whole body (a server may ignore `Range`, section 14.2), and ignores a
/// header it cannot parse or whose unit is not `bytes`.
public struct ByteRangeRequest: Sendable, Hashable {
    /// One range of the header.
    public enum Spec: Sendable, Hashable {
        /// `first-last` (`last` nil for the open-ended `first-`).
        case from(first: Int64, last: Int64?)
        /// `-length`: the last `length` bytes.
        case suffix(length: Int64)
    }

    /// What to send for a body of a known length.
    public enum Resolution: Sendable, Hashable {
        /// The whole body with a 200 (several ranges asked for).
        case full
        /// These bytes with a 206.
        case partial(Range<Int64>)
        /// A 416: no range overlaps the body.
        case unsatisfiable
    }

    /// The ranges, in header order (at least one).
    public let specs: [Spec]

    /// Parses a `Range` field value; nil when the unit is not `bytes` or the syntax is invalid
    /// (the header is then ignored).
    public init?(_ value: String) {
        let trimmed = value.trimmingWhitespace()
        guard let equals = trimmed.firstIndex(of: "="),
            trimmed[..<equals].trimmingWhitespace().lowercased() == "bytes"
        else {
            return nil
        }
        var specs: [Spec] = []
        for part in trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let part = part.trimmingWhitespace()
            // Empty list elements are allowed (RFC 9110 section 5.6.1).
            if part.isEmpty { continue }
            guard let dash = part.firstIndex(of: "-") else { return nil }
            let firstText = part[..<dash]
            let lastText = part[part.index(after: dash)...]
            if firstText.isEmpty {
                guard let length = Self.digits(lastText) else { return nil }
                specs.append(.suffix(length: length))
            } else {
                guard let first = Self.digits(firstText) else { return nil }
                if lastText.isEmpty {
                    specs.append(.from(first: first, last: nil))
                } else {
                    guard let last = Self.digits(lastText), last >= first else { return nil }
                    specs.append(.from(first: first, last: last))
                }
            }
        }
        guard !specs.isEmpty else { return nil }
        self.specs = specs
    }

    /// What to answer for a body of `length` bytes.
    public func resolve(length: Int64) -> Resolution {
        guard self.specs.count == 1, let spec = self.specs.first else {
            return .full
        }
        switch spec {
        case .from(let first, let last):
            guard first < length else { return .unsatisfiable }
            let end = min(last.map { $0 + 1 } ?? length, length)
            return .partial(first..<end)
        case .suffix(let suffixLength):
            guard suffixLength > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffixLength)..<length)
        }
    }

    /// Whether an `If-Range` value lets a range be served from a representation with these
    /// validators (RFC 9110 section 13.1.5): an entity tag must match strongly; a date must equal
    /// `Last-Modified` exactly. No `If-Range` always allows it.
    public static func ifRangeAllowsRange(_ ifRange: String?, etag: String?, lastModified: String?) -> Bool {
        guard let ifRange = ifRange?.trimmingWhitespace(), !ifRange.isEmpty else {
            return true
        }
        if ifRange.hasPrefix("\"") || ifRange.hasPrefix("W/") {
            // Strong comparison: neither tag may be weak.
            guard ifRange.hasPrefix("\""), let etag = etag?.trimmingWhitespace(), etag.hasPrefix("\"") else {
                return false
            }
            return ifRange == etag
        }
        guard let requested = HTTPDate.parse(ifRange),
            let modified = lastModified.flatMap({ HTTPDate.parse($0.trimmingWhitespace()) })
        else {
            return false
        }
        return requested == modified
    }

    /// A `Content-Range` value for a partial answer: `bytes first-last/length`.
    public static func contentRange(_ range: Range<Int64>, length: Int64) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
    }

    /// The range and complete length a `Content-Range` value names (`bytes first-last/length`,
    /// RFC 9110 section 14.4); nil for another unit, an unknown length (`*`), an unsatisfied range
    /// (`*/length`), or a range that does not fit the length.
    public static func parseContentRange(_ value: String) -> (range: Range<Int64>, length: Int64)? {
        let trimmed = value.trimmingWhitespace()
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "bytes" else { return nil }
        let rest = trimmed[trimmed.index(after: space)...].trimmingWhitespace()
        guard let slash = rest.firstIndex(of: "/"), let dash = rest[..<slash].firstIndex(of: "-"),
            let first = Self.digits(rest[..<dash]),
            let last = Self.digits(rest[rest.index(after: dash)..<slash]),
            let length = Self.digits(rest[rest.index(after: slash)...]),
            first <= last, last < length
        else {
            return nil
        }
        return (first..<(last + 1), length)
    }

    /// A `Range` value asking for `range` of a representation of `length` bytes: open-ended
    /// (`bytes=first-`) when it runs to the end, else `bytes=first-last`.
    public static func rangeValue(_ range: Range<Int64>, length: Int64) -> String {
        range.upperBound >= length ? "bytes=\(range.lowerBound)-" : "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
    }

    /// The `Content-Range` value of a 416: `bytes */length`.
    public static func unsatisfiedContentRange(length: Int64) -> String {
        "bytes */\(length)"
    }

    /// A non-negative decimal that fits in `Int64`, else nil.
    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        // Ranges past Int64 cannot be satisfied by any body; clamp so they resolve as such (and so
        // that `last + 1` cannot overflow).
        return min(Int64(text) ?? Int64.max, Int64.max - 1)
    }

    /// The one `first-last` range a request asks of a body whose length is not known before it is
    /// decoded, when its `If-Range` allows (as in ``resolution(_:isGet:status:length:etag:lastModified:)``);
    /// nil for no range, several, or one that runs to the body's end (`first-`, `-suffix`), which
    /// only the whole body answers.
    public static func boundedRange(
        _ request: some HeaderFields,
        isGet: Bool,
        status: Int,
        etag: String?,
        lastModified: String?
    ) -> Range<Int64>? {
        let values = request["range"]
        guard isGet, status == 200, !values.isEmpty,
            let range = ByteRangeRequest(values.joined(separator: ",")), range.specs.count == 1,
            case .from(let first, let last?) = range.specs[0],
            self.ifRangeAllowsRange(request["if-range"].first, etag: etag, lastModified: lastModified)
        else {
            return nil
        }
        return first..<(last + 1)
    }

    /// How to answer a request's `Range` (with its `If-Range`) from a full body of `length` bytes
    /// with these validators: `.full` when the request asks for no usable range (only a GET of a
    /// 200 is answered in part).
    public static func resolution(
        _ request: some HeaderFields,
        isGet: Bool,
        status: Int,
        length: Int64,
        etag: String?,
        lastModified: String?
    ) -> Resolution {
        let values = request["range"]
        guard isGet, status == 200, !values.isEmpty,
            let range = ByteRangeRequest(values.joined(separator: ",")),
            self.ifRangeAllowsRange(request["if-range"].first, etag: etag, lastModified: lastModified)
        else {
            return .full
        }
        return range.resolve(length: length)
    }
}

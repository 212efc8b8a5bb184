/// The bytes a stored partial response (a 206) holds of its representation, and the rules for
/// using and completing it (RFC 9111 sections 3.3 and 3.4, RFC 9110 section 15.3.7.3).
///
/// Larder keeps one contiguous run of bytes per partial entry: its body is exactly those bytes,
/// and its stored `Content-Range` says where they sit in a representation of known length. A
/// request for a range wholly inside them is answered from it; a later 206 with the same strong
/// validator that touches or overlaps them is combined into one longer run, and a run that
/// covers the whole length is a complete 200. Anything else replaces it (the newest wins). A
/// partial entry never answers a request for the whole representation.
public struct PartialContent: Sendable, Hashable {
    /// The bytes held, as offsets in the representation.
    public var held: Range<Int64>
    /// The representation's complete length.
    public var length: Int64

    /// Describes `held` bytes of a representation of `length` bytes.
    public init(held: Range<Int64>, length: Int64) {
        self.held = held
        self.length = length
    }

    /// What a 206 holds: one `Content-Range` of known complete length; a body (of `bodySize`
    /// bytes, when known) shorter than the range holds what it carries from the range's start,
    /// as an incomplete response does (RFC 9111 section 3.3). Nil for any other response, for an
    /// empty or longer body, or for one whose body is coded or varies (neither is kept in part: a
    /// coded range cannot be decoded alone, and a variant's ranges could not be told apart).
    public init?(status: Int, headers: some HeaderFields, bodySize: Int64?) {
        let ranges = headers["content-range"]
        guard status == 206, ranges.count == 1, let parsed = ByteRangeRequest.parseContentRange(ranges[0]),
            bodySize.map({ $0 > 0 && $0 <= Int64(parsed.range.count) }) ?? true,
            headers["content-encoding"].allSatisfy({ $0.trimmingWhitespace().lowercased() == "identity" }),
            headers["vary"].isEmpty
        else {
            return nil
        }
        let end = bodySize.map { parsed.range.lowerBound + $0 } ?? parsed.range.upperBound
        self.init(held: parsed.range.lowerBound..<end, length: parsed.length)
    }

    /// Whether every byte is held.
    public var isComplete: Bool {
        self.held == 0..<self.length
    }

    /// The bytes a request asks for, when they are all held: a GET with one `Range` (`a-b`, `a-`
    /// or `-n`, resolved against the complete length) whose `If-Range`, if any, matches these
    /// validators. Nil when the request asks for the whole, several ranges, bytes not held, or
    /// none at all.
    public func answerRange(for request: some HeaderFields, isGet: Bool, etag: String?, lastModified: String?) -> Range<Int64>? {
        let values = request["range"]
        guard isGet, !values.isEmpty, let asked = ByteRangeRequest(values.joined(separator: ",")),
            ByteRangeRequest.ifRangeAllowsRange(request["if-range"].first, etag: etag, lastModified: lastModified),
            case .partial(let range) = asked.resolve(length: self.length),
            range.lowerBound >= self.held.lowerBound, range.upperBound <= self.held.upperBound
        else {
            return nil
        }
        return range
    }

    /// Where `range` (wholly held) sits in the stored body.
    public func bodyOffsets(of range: Range<Int64>) -> Range<Int64> {
        (range.lowerBound - self.held.lowerBound)..<(range.upperBound - self.held.lowerBound)
    }

    /// The one range that completes the representation: what follows the held bytes when they
    /// start it, what precedes them when they end it; nil when bytes are missing on both sides
    /// (a full request then fetches the whole) or none are.
    public var missing: Range<Int64>? {
        if self.isComplete { return nil }
        if self.held.lowerBound == 0 { return self.held.upperBound..<self.length }
        if self.held.upperBound == self.length { return 0..<self.held.lowerBound }
        return nil
    }

    /// How a newer part combines with this one: the new bytes go between `before` and `after`,
    /// both offsets in this part's stored body, and together they are `combined`.
    public struct Combination: Sendable, Hashable {
        /// The stored bytes that come before the new ones (offsets in the stored body; may be empty).
        public var before: Range<Int64>
        /// The stored bytes that come after the new ones (offsets in the stored body; may be empty).
        public var after: Range<Int64>
        /// What the two hold together.
        public var combined: PartialContent
    }

    /// How `newer` combines with these bytes: nil when the lengths differ or the two neither
    /// touch nor overlap (then the newer replaces this). Whether they are of one representation
    /// is ``sameStrongValidator(_:_:)``'s question.
    public func combining(_ newer: PartialContent) -> Combination? {
        guard newer.length == self.length, newer.held.lowerBound <= self.held.upperBound,
            self.held.lowerBound <= newer.held.upperBound
        else {
            return nil
        }
        let start = self.held.lowerBound
        let before = 0..<max(0, newer.held.lowerBound - start)
        let afterStart = min(max(newer.held.upperBound, start), self.held.upperBound) - start
        let after = afterStart..<(self.held.upperBound - start)
        let combined = min(start, newer.held.lowerBound)..<max(self.held.upperBound, newer.held.upperBound)
        return Combination(before: before, after: after, combined: PartialContent(held: combined, length: self.length))
    }

    /// Whether two responses are parts of one representation: both carry the same strong entity
    /// tag (RFC 9110 section 8.8.1). Without one, parts are never combined.
    public static func sameStrongValidator(_ stored: some HeaderFields, _ newer: some HeaderFields) -> Bool {
        guard let storedTag = stored.first(name: "etag")?.trimmingWhitespace(), storedTag.hasPrefix("\""),
            let newerTag = newer.first(name: "etag")?.trimmingWhitespace()
        else {
            return false
        }
        return storedTag == newerTag
    }

    /// The status and headers to store these bytes under, from the newest response's headers
    /// (RFC 9110 section 15.3.7.3: its fields replace the stored ones): a 206 with this
    /// `Content-Range` and length, or, when complete, a 200 with the complete length.
    public func storedHead(newest headers: [HeaderField]) -> (status: Int, headers: [HeaderField]) {
        var stored = headers.filter { !$0.hasName("content-range") && !$0.hasName("content-length") }
        if self.isComplete {
            stored.append(HeaderField(name: "Content-Length", value: String(self.length)))
            return (200, stored)
        }
        stored.append(HeaderField(name: "Content-Range", value: ByteRangeRequest.contentRange(self.held, length: self.length)))
        stored.append(HeaderField(name: "Content-Length", value: String(self.held.count)))
        return (206, stored)
    }
}

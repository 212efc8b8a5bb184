/// How a stored response answers one request, decided before any I/O: the status, every header
/// in wire order, and which bytes of the stored body go. Every hit path answers through it (the
/// proxy's ordinary path writes it, the immediate path keeps it serialised per target), so both
/// answer with the same bytes.
///
/// The rules: the client's own conditional (RFC 9111 section 4.3.2), its `Range` against the full
/// stored body (RFC 9110 section 14) or the bytes a stored partial response holds
/// (``PartialContent``), a coding the client does not accept undone on the way out (see
/// ``EncodingNegotiation``), and framing by length or, for a decoded body, chunks (or the
/// connection's end for HTTP/1.0).
public struct StoredAnswer: Sendable, Hashable {
    /// Which bytes the answer carries.
    public enum Body: Sendable, Hashable {
        /// None (HEAD, 304, 416, or a status without a body).
        case none
        /// These bytes of the stored body.
        case bytes(Range<Int64>)
        /// The whole stored body with this coding undone (its length known only at the end).
        case decoded(ContentCoding)
        /// This range of the stored body with this coding undone: a 206 whose `Content-Range` and
        /// `Content-Length` are known once the body was decoded up to the range's end, never
        /// further (``decodedPart(_:decoded:complete:)``).
        case decodedRange(ContentCoding, Range<Int64>)
    }

    /// The stored response an answer is made from.
    public struct Stored: Sendable, Hashable {
        /// Its status.
        public var status: Int
        /// Its headers as stored.
        public var headers: [HeaderField]
        /// The length of its body.
        public var bodySize: Int64

        /// Describes a stored response.
        public init(status: Int, headers: [HeaderField], bodySize: Int64) {
            self.status = status
            self.headers = headers
            self.bodySize = bodySize
        }
    }

    /// What of the request shapes the answer.
    public struct Request<Headers: HeaderFields> {
        /// Whether it is a HEAD (else a GET).
        public var isHead: Bool
        /// Its headers: conditionals, `Range`, `If-Range`, `Accept-Encoding`.
        public var headers: Headers
        /// Whether the connection stays open after the answer.
        public var keepAlive: Bool
        /// Whether the client speaks HTTP/1.1 or later (chunked framing).
        public var supportsChunked: Bool

        /// Describes a request.
        public init(isHead: Bool, headers: Headers, keepAlive: Bool, supportsChunked: Bool) {
            self.isHead = isHead
            self.headers = headers
            self.keepAlive = keepAlive
            self.supportsChunked = supportsChunked
        }
    }

    /// The status line's code.
    public var status: Int
    /// The headers that follow from the stored response, in order; the per-request ones
    /// (`age`, `Cache-Status`, `Connection`) come after them, see ``headers``.
    public var storedPart: [HeaderField]
    /// The `Age` value (nil for a 416, which describes no stored representation).
    public var age: Int?
    /// The `Cache-Status` value.
    public var cacheStatus: CacheStatus
    /// Whether the connection closes after the answer.
    public var close: Bool
    /// Whether the answer comes from the cache because the origin could not answer: it then says
    /// so (`Larder-Offline: 1`), since `navigator.onLine` stays true behind a proxy.
    public var disconnected = false
    /// The body's bytes.
    public var body: Body

    /// Every header of the answer, in wire order: the stored part, then the ones that change with
    /// every answer (``ProxyAnswerFields/forEach(age:cacheStatus:disconnected:close:_:)``).
    public var headers: [HeaderField] {
        var headers = self.storedPart
        ProxyAnswerFields.forEach(
            age: self.age, cacheStatus: self.cacheStatus.description, disconnected: self.disconnected, close: self.close
        ) {
            headers.append(HeaderField(name: $0, value: $1))
        }
        return headers
    }

    /// The answer to `request` from `stored`, `age` seconds old; nil when it is coded in a way the
    /// client does not accept and Larder cannot undo.
    public static func plan(
        _ stored: Stored,
        request: Request<some HeaderFields>,
        age: Int,
        cacheStatus: CacheStatus,
        disconnected: Bool = false
    ) -> StoredAnswer? {
        var answer = Self.planned(stored, request: request, age: age, cacheStatus: cacheStatus)
        answer?.disconnected = disconnected
        return answer
    }

    private static func planned(
        _ stored: Stored,
        request: Request<some HeaderFields>,
        age: Int,
        cacheStatus: CacheStatus
    ) -> StoredAnswer? {
        if stored.status == 206 {
            return Self.fromPart(stored, request: request, age: age, cacheStatus: cacheStatus)
        }
        var headers = Self.storedHeaders(stored.headers)
        let via = stored.headers["via"]
        let etag = stored.headers.first(name: "etag")
        let lastModified = stored.headers.first(name: "last-modified")
        var answer = StoredAnswer(
            status: stored.status, storedPart: [], age: age, cacheStatus: cacheStatus, close: !request.keepAlive, body: .none)

        if stored.status == 200,
            ClientConditionals.notModified(
                request.headers, etag: etag, lastModified: lastModified, date: stored.headers.first(name: "date"))
        {
            answer.status = 304
            answer.storedPart = Self.withVia(headers.filter { ClientConditionals.notModifiedHeaderNames.contains($0.name.lowercased()) })
            return answer
        }
        switch EncodingNegotiation.plan(contentEncoding: stored.headers["content-encoding"], request: request.headers) {
        case .asIs:
            break
        case .unusable:
            return nil
        case .decode(let coding):
            EncodingNegotiation.decodedHeaders(&headers)
            let hasBody = !request.isHead && Self.mayHaveBody(stored.status)
            if hasBody,
                let range = ByteRangeRequest.boundedRange(
                    request.headers, isGet: !request.isHead, status: stored.status, etag: headers.first(name: "etag"),
                    lastModified: lastModified),
                range.lowerBound <= Self.decodedRangeReach
            {
                // Decoding the whole body to send a few bytes of it would cost the whole; the
                // answer is framed by its length once the range is decoded.
                answer.status = 206
                answer.body = .decodedRange(coding, range)
            } else if hasBody {
                if let chunked = Self.unknownLengthFraming(supportsChunked: request.supportsChunked) {
                    headers.append(chunked)
                } else {
                    answer.close = true
                }
                answer.body = .decoded(coding)
            }
            answer.storedPart = Self.withVia(headers, stored: via)
            return answer
        }
        if stored.status == 200 {
            headers.replaceOrAdd(name: "accept-ranges", value: "bytes")
        }
        guard !request.isHead, Self.mayHaveBody(stored.status) else {
            headers.append(HeaderField(name: "content-length", value: String(stored.bodySize)))
            answer.storedPart = Self.withVia(headers, stored: via)
            return answer
        }
        var slice: Range<Int64> = 0..<stored.bodySize
        let ranged = ByteRangeRequest.resolution(
            request.headers,
            isGet: !request.isHead,
            status: stored.status,
            length: stored.bodySize,
            etag: etag,
            lastModified: lastModified
        )
        switch ranged {
        case .full:
            break
        case .unsatisfiable:
            return Self.unsatisfiable(length: stored.bodySize, cacheStatus: cacheStatus, close: answer.close)
        case .partial(let range):
            slice = range
            answer.status = 206
            headers.remove(name: "content-range")
            headers.append(HeaderField(name: "content-range", value: ByteRangeRequest.contentRange(range, length: stored.bodySize)))
        }
        headers.append(HeaderField(name: "content-length", value: String(slice.count)))
        answer.storedPart = Self.withVia(headers, stored: via)
        answer.body = .bytes(slice)
        return answer
    }

    /// The answer from a stored partial response (``PartialContent``): a 206 of the range asked
    /// for when every byte of it is held; nil for anything else (a HEAD, the whole, bytes not
    /// held), which a partial response never answers.
    private static func fromPart(
        _ stored: Stored,
        request: Request<some HeaderFields>,
        age: Int,
        cacheStatus: CacheStatus
    ) -> StoredAnswer? {
        guard let partial = PartialContent(status: stored.status, headers: stored.headers, bodySize: stored.bodySize),
            let range = partial.answerRange(
                for: request.headers, isGet: !request.isHead, etag: stored.headers.first(name: "etag"),
                lastModified: stored.headers.first(name: "last-modified"))
        else {
            return nil
        }
        // The part's own Content-Range says what is stored; the answer says what it sends.
        var headers = Self.storedHeaders(stored.headers).filter { !$0.hasName("content-range") }
        headers.append(HeaderField(name: "content-range", value: ByteRangeRequest.contentRange(range, length: partial.length)))
        headers.append(HeaderField(name: "content-length", value: String(range.count)))
        return StoredAnswer(
            status: 206, storedPart: Self.withVia(headers, stored: stored.headers["via"]), age: age, cacheStatus: cacheStatus,
            close: !request.keepAlive, body: .bytes(partial.bodyOffsets(of: range)))
    }

    /// How far into a body Larder decodes for the client a range may start and still be answered
    /// as a range (4 MiB): decoding up to its first byte costs that much work for nothing sent, so
    /// a range starting further is answered with the whole decoded body, as a server may ignore
    /// `Range` (RFC 9110 section 14.2). The work of a decoded answer is then at most twice what
    /// it sends plus twice this.
    public static let decodedRangeReach: Int64 = 4 << 20

    /// What a ``Body/decodedRange(_:_:)`` answer sends once its body was decoded up to the range's
    /// end or its own: `decoded` bytes, all of the decoded body when `complete`. The bytes of the
    /// range there are and their `Content-Range` (complete length `*` when decoding stopped
    /// before the end, RFC 9110 section 14.4); nil when the body ends before the range starts (a
    /// 416, ``unsatisfiable(length:cacheStatus:close:)`` with `decoded`).
    public static func decodedPart(_ range: Range<Int64>, decoded: Int64, complete: Bool) -> (range: Range<Int64>, contentRange: String)? {
        guard decoded > range.lowerBound else { return nil }
        let sent = range.lowerBound..<min(range.upperBound, decoded)
        return (sent, "bytes \(sent.lowerBound)-\(sent.upperBound - 1)/\(complete ? String(decoded) : "*")")
    }

    /// A 416 for a range no byte of a body of `length` satisfies: `Content-Range: bytes */length`
    /// and nothing of the stored response.
    public static func unsatisfiable(length: Int64, cacheStatus: CacheStatus, close: Bool) -> StoredAnswer {
        StoredAnswer(
            status: 416, storedPart: Self.withVia(Self.unsatisfiedHeaders(length: length)), age: nil, cacheStatus: cacheStatus,
            close: close,
            body: .none)
    }

    /// A 416's own headers, for a body of `length`.
    static func unsatisfiedHeaders(length: Int64) -> [HeaderField] {
        [
            HeaderField(name: "content-range", value: ByteRangeRequest.unsatisfiedContentRange(length: length)),
            HeaderField(name: "content-length", value: "0"),
        ]
    }

    /// How a body whose length is not known ahead is delimited: chunks (this header) for an HTTP/1.1
    /// client, else (nil) the connection's end, as HTTP/1.0 has it.
    public static func unknownLengthFraming(supportsChunked: Bool) -> HeaderField? {
        supportsChunked ? HeaderField(name: "transfer-encoding", value: "chunked") : nil
    }

    /// Whether a response with `status` may carry a body (not 1xx, 204 or 304).
    public static func mayHaveBody(_ status: Int) -> Bool {
        status >= 200 && status != 204 && status != 304
    }

    /// A stored response's own headers as an answer starts from: without framing, `Age` and `Via`
    /// (the answer sets its own). A stored `Content-Range` stays on the whole response, as stored
    /// (RFC 9111 section 3.1); a 206 cut from it, or a decoded body, says its own.
    static func storedHeaders(_ stored: [HeaderField]) -> [HeaderField] {
        stored.filter { field in
            !(field.hasName("content-length") || field.hasName("age") || field.hasName("via"))
        }
    }

    /// `headers` with this proxy's `Via` appended to the stored one (RFC 9110 section 7.6.3).
    static func withVia(_ headers: [HeaderField], stored: [String] = []) -> [HeaderField] {
        headers + [ViaField.field(after: stored)]
    }
}

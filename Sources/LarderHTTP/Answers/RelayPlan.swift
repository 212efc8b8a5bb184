/// How a response relayed from upstream goes to the client, decided from its head before a byte
/// of its body: the status, the headers (the response's own without hop-by-hop fields, then its
/// framing), which bytes of the body go, and whether the connection ends after it. The body is
/// read whole from upstream whatever the client gets, so that it can be stored.
///
/// The rules: a coding Larder asked for that the client does not accept is undone on the way out
/// (``EncodingNegotiation``; the length is then unknown); with a known length, the client's
/// `Range` (and `If-Range`) of a GET is cut from the full body as a 206, or answered 416
/// (RFC 9110 section 14); a body of unknown length goes in chunks to an HTTP/1.1 client, else
/// until the connection's end. Larder's own fields (`Via`, `Cache-Status`) are added after these
/// by ``ProxyAnswerFields``.
public struct RelayPlan: Sendable, Hashable {
    /// Which bytes of the upstream body the client gets.
    public enum Body: Sendable, Hashable {
        /// None: a HEAD, or a status without a body.
        case none
        /// None, and the answer is complete at once: Larder's own 416 for a range no byte of the
        /// body satisfies (an origin's own 416 is relayed like any answer).
        case unsatisfiable
        /// All of them, as they come.
        case whole
        /// These bytes of the full body (a 206).
        case range(Range<Int64>)
        /// All of them with this coding undone.
        case decoded(ContentCoding)
    }

    /// The status the client gets.
    public var status: Int
    /// The headers, before Larder's own.
    public var headers: [HeaderField]
    /// The bytes the client gets.
    public var body: Body
    /// Whether the connection closes after the answer.
    public var close: Bool

    /// The plan for an upstream answer of `status` with `headers` (hop-by-hop fields already
    /// removed) to `request`; `isGet` tells a GET from other methods a relay carries (HEAD is
    /// `request.isHead`).
    public init<Fields: HeaderFields>(status: Int, headers upstream: [HeaderField], request: StoredAnswer.Request<Fields>, isGet: Bool) {
        let declaredLength = upstream.contentLength
        let mayHaveBody = !request.isHead && StoredAnswer.mayHaveBody(status)
        var headers = upstream
        headers.remove(name: "content-length")
        var close = !request.keepAlive
        var decoded: ContentCoding?
        if case .decode(let coding) = EncodingNegotiation.plan(contentEncoding: upstream["content-encoding"], request: request.headers) {
            decoded = coding
            EncodingNegotiation.decodedHeaders(&headers)
        }
        if let declaredLength, mayHaveBody, decoded == nil {
            let resolution = ByteRangeRequest.resolution(
                request.headers, isGet: isGet, status: status, length: declaredLength, etag: upstream.first(name: "etag"),
                lastModified: upstream.first(name: "last-modified"))
            switch resolution {
            case .full:
                break
            case .partial(let range):
                headers.add(name: "content-range", value: ByteRangeRequest.contentRange(range, length: declaredLength))
                headers.add(name: "content-length", value: String(range.count))
                self.init(status: 206, headers: headers, body: .range(range), close: close)
                return
            case .unsatisfiable:
                // Nothing of the response: its head describes bytes the client does not get.
                self.init(status: 416, headers: StoredAnswer.unsatisfiedHeaders(length: declaredLength), body: .unsatisfiable, close: close)
                return
            }
        }
        if decoded == nil, let declaredLength {
            headers.add(name: "content-length", value: String(declaredLength))
        } else if mayHaveBody {
            if let chunked = StoredAnswer.unknownLengthFraming(supportsChunked: request.supportsChunked) {
                headers.add(name: chunked.name, value: chunked.value)
            } else {
                close = true
            }
        }
        let body: Body = mayHaveBody ? decoded.map { .decoded($0) } ?? .whole : .none
        self.init(status: status, headers: headers, body: body, close: close)
    }

    /// A plan as given.
    public init(status: Int, headers: [HeaderField], body: Body, close: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.close = close
    }
}

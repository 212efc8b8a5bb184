/// What ``TestOrigin`` answers on a route.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int = 200
    /// Response headers, sent in this order. `Content-Length` is added from the body unless present
    /// (a test may set a wrong one on purpose); `.chunked` bodies are sent without one.
    public var headers: [(name: String, value: String)] = []
    /// The body.
    public var body: TestBody = .bytes([])
    /// Misbehaviours applied while answering.
    public var faults: [TestFault] = []

    /// Creates a response.
    public init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: TestBody = .bytes([]),
        faults: [TestFault] = []
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.faults = faults
    }

    /// A text response with `Content-Type: contentType; charset=utf-8` followed by `headers`.
    public static func text(
        _ text: String,
        status: Int = 200,
        contentType: String = "text/plain",
        headers: [(name: String, value: String)] = [],
        faults: [TestFault] = []
    ) -> TestResponse {
        TestResponse(
            status: status,
            headers: [(name: "Content-Type", value: "\(contentType); charset=utf-8")] + headers,
            body: .bytes(Array(text.utf8)),
            faults: faults
        )
    }

    /// A response computed per request by `handler`; see ``TestFault/handler(_:)``.
    public static func dynamic(_ handler: @escaping @Sendable (RecordedRequest) -> TestResponse) -> TestResponse {
        TestResponse(faults: [.handler(handler)])
    }

    /// The first value of the header `name` (case-insensitive), or `nil` when absent.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

/// The body of a ``TestResponse``.
public enum TestBody: Sendable {
    /// These bytes, with a `Content-Length`.
    case bytes([UInt8])
    /// `length` bytes of ``GeneratedBody``, with a `Content-Length`, streamed in 64 KiB pieces with
    /// backpressure so the origin never holds the body.
    case generated(length: Int64)
    /// These chunks sent with `Transfer-Encoding: chunked` and no `Content-Length`, one HTTP chunk each.
    case chunked([[UInt8]])
    /// The first `length` bytes of the file at `path`, read in pieces as they are sent, with a
    /// `Content-Length`.
    case file(path: String, length: Int64)

    /// The body length, or `nil` for a chunked body.
    public var contentLength: Int64? {
        switch self {
        case .bytes(let bytes): Int64(bytes.count)
        case .generated(let length): length
        case .chunked: nil
        case .file(_, let length): length
        }
    }
}

/// A misbehaviour of ``TestOrigin`` while it answers a request.
public enum TestFault: Sendable {
    /// Wait this long before sending the response head.
    case delayHead(Duration)
    /// Send these interim (1xx) heads, in order, before the response head.
    case interim([(status: Int, headers: [(name: String, value: String)])])
    /// Wait this long between body pieces (a slow body); see ``chunkSize(_:)``.
    case delayChunks(Duration)
    /// Write the body in pieces of this many bytes (default 64 KiB; chunked bodies keep their chunks).
    case chunkSize(Int)
    /// Send the head with the full `Content-Length`, then `bytes` of the body, then reset the TCP
    /// connection (`SO_LINGER` 0, so the peer sees a RST).
    case resetAfter(bytes: Int64)
    /// Send the head with the full `Content-Length`, then `bytes` of the body, then close the
    /// connection cleanly (a FIN): the body is shorter than its `Content-Length`.
    case closeAfter(bytes: Int64)
    /// Read the request, then close the connection without answering.
    case closeWithoutResponse
    /// Compute the response per request. The faults of the returned response apply, after the
    /// other faults of the route's response.
    case handler(@Sendable (RecordedRequest) -> TestResponse)
}

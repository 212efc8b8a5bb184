import LarderTestSupport
import Testing

@testable import LarderNIOUpstream
@testable import LarderUpstream

#if Curl
    @testable import LarderCurl
#endif

/// The ``Upstream`` clients the contract tests (`UpstreamContract*Tests`) run against: every row
/// runs once per client, and a row whose expectation differs by client says so, with the reason.
enum UpstreamUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    #if Curl
        case curl
    #endif
    case nio

    var testDescription: String { self.rawValue }

    /// Whether the client reports interim heads (``UpstreamRequest/interim``): AsyncHTTPClient
    /// drops 1xx heads before NIOUpstream could see them.
    var reportsInterimHeads: Bool {
        switch self {
        #if Curl
            case .curl: true
        #endif
        case .nio: false
        }
    }

    /// Whether every body byte that arrived before the origin closed the connection mid-body
    /// reaches the consumer before the failure: AsyncHTTPClient fails the body at the close and
    /// drops what it held back from a consumer not reading yet (only a correct prefix arrives).
    var deliversBytesBeforeACloseMidBody: Bool {
        switch self {
        #if Curl
            case .curl: true
        #endif
        case .nio: false
        }
    }

    /// A client of this kind with `configuration`.
    func make(_ configuration: UpstreamConfiguration = .init()) throws -> TestedUpstream {
        switch self {
        #if Curl
            case .curl:
                let upstream = try CurlUpstream(configuration: configuration)
                return TestedUpstream(upstream: upstream, stop: { upstream.shutdown() })
        #endif
        case .nio:
            let upstream = try NIOUpstream(configuration: configuration)
            return TestedUpstream(upstream: upstream, stop: { await upstream.shutdown() })
        }
    }
}

/// A client under test, and how to shut it down.
struct TestedUpstream: Upstream {
    let upstream: any Upstream
    let stop: @Sendable () async -> Void

    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        try await self.upstream.execute(request)
    }

    func receive(_ request: UpstreamRequest, into sink: any UpstreamBodySink) async throws -> UpstreamResponseHead {
        try await self.upstream.receive(request, into: sink)
    }

    /// Shuts the client down and returns once it has stopped.
    func shutdown() async {
        await self.stop()
    }

    /// Shuts the client down without waiting, for a `defer`.
    func close() {
        let stop = self.stop
        Task { await stop() }
    }
}

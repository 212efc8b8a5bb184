import LarderHTTP
import NIOCore
import NIOHTTP1
import NIOPosix

@testable import LarderProxy

extension ImmediateHitsTests.Fixture {
    /// What the ordinary path (`ForwardProxy.serveCacheable`) writes for `request`, in order. A
    /// body sent from its file (by `sendfile`, as on a connection without TLS) is taken as
    /// written as soon as it comes, as the connection's handler reports it.
    func ordinaryParts(_ request: HTTPRequestHead, sendfile: Bool = true) async throws -> [ProxyOutbound] {
        let (outbound, sink) = NIOAsyncChannelOutboundWriter<ProxyOutbound>.makeTestingWriter()
        let closed = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        defer { closed.succeed() }
        let writer = ResponseWriter(
            outbound: outbound, version: request.version, bodyFiles: sendfile ? .sendfile(connectionClose: closed.futureResult) : .read)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { outbound.finish() }
                _ = try await self.proxy.serveCacheable(request, url: try HTTPURL(parsing: request.uri), client: .local, writer: writer)
            }
            var parts: [ProxyOutbound] = []
            for await part in sink {
                if case .file(_, let completion) = part {
                    completion.settle(.success(()))
                }
                parts.append(part)
            }
            try await group.waitForAll()
            return parts
        }
    }
}

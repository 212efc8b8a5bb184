import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One GET of an `http://` URL through an HTTP proxy, as a browser sends it (the absolute URL as
/// the request target), on a connection of its own.
public struct ProxiedGet: Sendable {
    /// The answer's status code.
    public var status: Int
    /// The answer's header fields.
    public var headers: HTTPHeaders
    /// The answer's body, its chunked framing undone.
    public var body: [UInt8]

    /// Sends `GET url` to the proxy at `proxyHost:proxyPort` and reads the whole answer.
    public static func fetch(_ url: String, proxyHost: String = "127.0.0.1", proxyPort: Int) async throws -> ProxiedGet {
        guard let parsed = URL(string: url), let host = parsed.host else {
            throw ProxiedGetError(description: "\(url) is not an absolute URL")
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: proxyHost, port: proxyPort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url)
            head.headers.add(name: "Host", value: parsed.port.map { "\(host):\($0)" } ?? host)
            head.headers.add(name: "Connection", value: "close")
            try await outbound.write(.head(head))
            try await outbound.write(.end(nil))
            var answer = ProxiedGet(status: 0, headers: [:], body: [])
            for try await part in inbound {
                switch part {
                case .head(let head):
                    answer.status = Int(head.status.code)
                    answer.headers = head.headers
                case .body(let chunk):
                    answer.body += chunk.readableBytesView
                case .end:
                    return answer
                }
            }
            throw ProxiedGetError(description: "the proxy closed the connection before the answer to \(url) ended")
        }
    }
}

/// A proxied GET that could not be made or did not end.
public struct ProxiedGetError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
}

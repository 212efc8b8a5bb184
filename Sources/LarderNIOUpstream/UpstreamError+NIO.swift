import AsyncHTTPClient
import LarderHTTP
import LarderUpstream
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

extension UpstreamError {
    /// What was known about a ``NIOUpstream`` transfer when it failed, to classify its error.
    struct NIOFailureContext {
        /// The request method, for the message.
        var method: String
        /// The request URL.
        var url: String
        /// The host the URL names, for a DNS failure's message.
        var host: String
        /// Whether the response head had been delivered, so the failure hit the body.
        var headWasDelivered: Bool
        /// Body bytes delivered so far.
        var bodyBytesDelivered: Int64
        /// The body length the response head declared, if any.
        var declaredBodyLength: Int64?
        /// The parent proxy the transfer went through, if any.
        var parent: ProxyEndpoint?
    }

    /// Classifies `error`, thrown by AsyncHTTPClient or NIO for a failed transfer, into the kind
    /// curl's code would have given (``init(curlCode:context:)`` in UpstreamError+Curl.swift).
    init(nio error: any Error, context: NIOFailureContext) {
        let (kind, summary) = Self.classify(error, context: context)
        // A TLS failure after the head (a bad close_notify) is not a connect failure.
        self.init(
            kind: kind, summary: summary, method: context.method, url: context.url, parent: context.parent,
            bodyBytesDelivered: context.bodyBytesDelivered, declaredBodyLength: context.declaredBodyLength,
            detail: String(describing: error), isConnectFailure: kind == .tls ? !context.headWasDelivered : nil)
    }

    private static func classify(_ error: any Error, context: NIOFailureContext) -> (Kind, String) {
        let broken: (Kind, String) =
            context.headWasDelivered
            ? (.truncatedBody, "the connection broke mid-body") : (.connectionReset, "the connection broke before a response arrived")
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .tlsHandshakeTimeout, .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return (.connectTimeout, "connecting timed out")
            case .readTimeout, .writeTimeout, .deadlineExceeded:
                return (.timeout, "the transfer timed out")
            case .remoteConnectionClosed, .uncleanShutdown:
                return broken
            case .cancelled, .alreadyShutdown, .requestStreamCancelled:
                return (.cancelled, "cancelled")
            case .invalidProxyResponse, .proxyAuthenticationRequired:
                return (.connectionRefused, "the upstream proxy refused to open a tunnel")
            case .bodyLengthMismatch:
                return (.invalidRequest, "the request body did not match its declared length")
            case .invalidURL, .emptyHost, .emptyScheme, .traceRequestWithBody:
                return (.invalidRequest, "the request cannot be sent as given")
            default:
                // The cases that carry a value (an unsupported scheme, invalid field names or values)
                // cannot be matched as patterns.
                let description = String(describing: error)
                if ["unsupportedScheme", "invalidHeaderField"].contains(where: description.contains) {
                    return (.invalidRequest, "the request cannot be sent as given")
                }
                return (.other(0), "the transfer failed")
            }
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return (.dnsFailure, "could not resolve the host name \(error.host)")
            }
            if error.connectionErrors.contains(where: { Self.isConnectTimeout($0.error) }) {
                return (.connectTimeout, "connecting timed out")
            }
            return (.connectionRefused, "could not connect")
        case is SocketAddressError:
            return (.dnsFailure, "could not resolve the host name \(context.host)")
        case let error as ChannelError:
            switch error {
            case _ where Self.isConnectTimeout(error):
                return (.connectTimeout, "connecting timed out")
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
                return broken
            default:
                return (.other(0), "the transfer failed")
            }
        case let error as NIOSSLError:
            if case .uncleanShutdown = error {
                return broken
            }
            return (.tls, "TLS failed")
        case is BoringSSLError, is NIOSSLExtraError:
            return (.tls, "TLS failed")
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH:
                return (.connectionRefused, "could not connect")
            default:
                return broken
            }
        case is HTTPParserError:
            // A head that cannot be parsed, or a body that ends where its framing says it cannot.
            return context.headWasDelivered ? broken : (.other(0), "the response head could not be parsed")
        case is CancellationError:
            return (.cancelled, "cancelled")
        default:
            return (.other(0), "the transfer failed")
        }
    }

    private static func isConnectTimeout(_ error: any Error) -> Bool {
        if case .connectTimeout = error as? ChannelError { return true }
        return false
    }
}

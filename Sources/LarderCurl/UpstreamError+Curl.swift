// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import CCurl
    import LarderHTTP
    import LarderUpstream

    extension UpstreamError {
        /// What was known about a transfer when it failed, to classify its libcurl result.
        struct CurlFailureContext {
            /// The request method, for the message.
            var method: String
            /// The request URL.
            var url: String
            /// Whether the connection (TCP and, for HTTPS, TLS) was established and the request about to be sent.
            var wasConnected: Bool
            /// Whether the response head had been delivered, so the failure hit the body.
            var headWasDelivered: Bool
            /// Body bytes delivered so far.
            var bodyBytesDelivered: Int64
            /// The body length the response head declared, if any.
            var declaredBodyLength: Int64?
            /// libcurl's CURLOPT_ERRORBUFFER text, if it wrote one.
            var curlDetail: String
            /// The parent proxy the transfer went through, if any.
            var parent: ProxyEndpoint?
            /// The status of the parent's answer to `CONNECT` (CURLINFO_HTTP_CONNECTCODE), 0 without one.
            var parentConnectStatus: Int
        }

        /// libcurl result codes that mean TLS failed.
        private static let tlsCodes: Set<UInt32> = [35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98]

        /// Classifies libcurl result `code` of a failed transfer.
        init(curlCode code: CURLcode, context: CurlFailureContext) {
            let kind: Kind
            let summary: String
            switch code.rawValue {
            case _ where context.parentConnectStatus >= 300:
                // The parent could not open the tunnel: as good as the origin refusing.
                kind = .connectionRefused
                summary = "the upstream proxy answered CONNECT with \(context.parentConnectStatus)"
            case 5:
                kind = .dnsFailure
                summary = "could not resolve the upstream proxy's host name"
            case 6:
                kind = .dnsFailure
                summary = "could not resolve the host name"
            case 7:
                kind = .connectionRefused
                summary = "could not connect"
            case 28 where !context.wasConnected:
                kind = .connectTimeout
                summary = "connecting timed out"
            case 28:
                kind = .timeout
                summary = "the transfer timed out"
            case let value where Self.tlsCodes.contains(value):
                kind = .tls
                summary = "TLS failed"
            case 18:
                kind = .truncatedBody
                summary = "the response ended early"
            case 65 where !context.headWasDelivered:
                // The connection died before the request went out, and a streamed body cannot be sent again.
                kind = .connectionReset
                summary = "the connection broke before the request body was sent, and it cannot be resent"
            case 52, 55, 56:
                // Once the head is out, a broken connection means the caller got part of the body.
                kind = context.headWasDelivered ? .truncatedBody : .connectionReset
                summary =
                    context.headWasDelivered
                    ? "the connection broke mid-body" : "the connection broke before a response arrived"
            case 3:
                kind = .invalidRequest
                summary = "malformed URL"
            case 1:
                kind = .invalidRequest
                summary = "unsupported URL scheme (only http and https are fetched)"
            default:
                kind = .other(Int(code.rawValue))
                summary = "the transfer failed"
            }
            // TLS codes after the connection is up (e.g. a failed close_notify) are not connect failures.
            self.init(
                kind: kind, summary: summary, method: context.method, url: context.url, parent: context.parent,
                bodyBytesDelivered: context.bodyBytesDelivered, declaredBodyLength: context.declaredBodyLength,
                detail: "curl error \(code.rawValue): \(Self.curlText(code: code, detail: context.curlDetail))",
                isConnectFailure: kind == .tls ? !context.wasConnected : nil)
        }

        private static func curlText(code: CURLcode, detail: String) -> String {
            if !detail.isEmpty {
                return detail
            }
            guard let text = curl_easy_strerror(code) else {
                return "unknown error"
            }
            return String(cString: text)
        }
    }
#endif

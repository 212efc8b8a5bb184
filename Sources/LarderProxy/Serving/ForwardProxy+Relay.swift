import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import NIOCore
import NIOHTTP1

extension ForwardProxy {
    // MARK: - Relaying an upstream response

    /// Streams an upstream response to the client, storing it on the way when the relay says so;
    /// requests for `committing` (the key looked up) that come between the client's last byte
    /// and the commit wait for it (``CommittingAnswers``).
    func relay(
        _ response: UpstreamResponse,
        request: HTTPRequestHead,
        writer: ResponseWriter,
        relay: CacheTransaction.Relay,
        committing: CacheKey? = nil
    ) async throws -> Outcome {
        let forwardReason = relay.forwardReason
        let responseTime = self.configuration.now()
        let isHead = request.method == .HEAD
        var upstreamHeaders = HTTPHeaders(response.head.headers.map { ($0.name, $0.value) })
        upstreamHeaders = HopByHopHeaders.removing(from: upstreamHeaders)
        self.learnCORSGrant(from: upstreamHeaders, request: request)
        let declaredLength = upstreamHeaders.contentLength
        let status = HTTPResponseStatus(statusCode: response.head.status, reasonPhrase: response.head.reason)
        let mayHaveBody = !isHead && status.mayHaveResponseBody

        let storing = relay.storeAs.flatMap {
            StoringBody(
                store: self.store, target: $0, failures: self.storeFailures, budget: self.budget, declaredLength: declaredLength,
                logger: self.logger)
        }
        if let partial = relay.partial, partial.whole {
            return try await self.relayCompleted(
                response, request: request, writer: writer, relay: relay, partial: partial, storing: storing, committing: committing)
        }
        // `stored` is said only of what is being stored while storing works; a body cut short is
        // never stored, and the client then sees a broken response (the connection closes).
        let claimsStored = storing != nil && !self.storeFailures.isFailing
        var cacheStatus = CacheStatus.forward(forwardReason, status: response.head.status, stored: claimsStored)
        if let notStoredReason = relay.notStoredReason, forwardReason != .method {
            cacheStatus.detail = "not-stored-\(notStoredReason)"
        } else if relay.storeAs != nil, self.budget.isOverEntryLimit(declaredLength) {
            cacheStatus.detail = "not-stored-too-large"
        }
        if let detail = relay.detail {
            cacheStatus.detail = detail
        }

        var headers = upstreamHeaders
        headers.remove(name: "content-length")
        var closeAfter = !request.isKeepAlive
        // Larder asked for gzip; a client that cannot take it gets the body decoded (and stored coded).
        var decoder: ContentDecoder?
        if case .decode(let coding) = EncodingNegotiation.plan(
            contentEncoding: upstreamHeaders["content-encoding"], request: request.headers)
        {
            decoder = ContentDecoder(coding: coding)
            EncodingNegotiation.decodedHeaders(&headers)
        }
        let sentLength = decoder == nil ? declaredLength : nil
        // With a known length, the client's range maps onto the full body before it streams.
        var slice: Range<Int64>?
        var status206 = false
        var rangeUnsatisfiable = false
        if let declaredLength, mayHaveBody, decoder == nil {
            let resolution = ByteRangeRequest.resolution(
                request.headers,
                isGet: request.method == .GET,
                status: response.head.status,
                length: declaredLength,
                etag: upstreamHeaders["etag"].first,
                lastModified: upstreamHeaders["last-modified"].first
            )
            switch resolution {
            case .full:
                break
            case .partial(let range):
                slice = range
                status206 = true
            case .unsatisfiable:
                slice = 0..<0
                rangeUnsatisfiable = true
            }
        }
        if let declaredLength = sentLength {
            if status206, let slice {
                headers.add(name: "content-range", value: ByteRangeRequest.contentRange(slice, length: declaredLength))
                headers.add(name: "content-length", value: String(slice.count))
            } else {
                headers.add(name: "content-length", value: String(declaredLength))
            }
        } else if mayHaveBody {
            if let chunked = StoredAnswer.unknownLengthFraming(supportsChunked: StoredAnswer.Request(head: request).supportsChunked) {
                headers.add(name: chunked.name, value: chunked.value)
            } else {
                closeAfter = true
            }
        }
        if rangeUnsatisfiable, let declaredLength {
            // The client's answer is complete at once; the body is still read to be stored.
            let answer = StoredAnswer.unsatisfiable(length: declaredLength, cacheStatus: cacheStatus, close: !request.isKeepAlive)
            try await writer.whole(.rangeNotSatisfiable, HTTPHeaders(answer.headers.map { ($0.name, $0.value) }), body: nil)
        } else {
            Self.addProxyHeaders(&headers, cacheStatus: cacheStatus, close: closeAfter)
            try await writer.head(status206 ? .partialContent : status, headers)
        }

        var position: Int64 = 0
        do {
            // A 206 joining the stored part: its bytes before the new ones go first.
            await self.copyStoredPart(relay.partial, \.before, storing: storing)
            for try await chunk in response.body {
                storing?.write(chunk)
                let chunkStart = position
                position += Int64(chunk.readableBytes)
                guard mayHaveBody else { continue }
                if let decoder {
                    decoder.feed(chunk)
                    while let piece = try decoder.next() {
                        try await writer.body(piece)
                    }
                } else if let slice {
                    let lower = max(chunkStart, slice.lowerBound)
                    let upper = min(position, slice.upperBound)
                    if lower < upper, let part = chunk.getSlice(at: chunk.readerIndex + Int(lower - chunkStart), length: Int(upper - lower))
                    {
                        try await writer.body(part)
                    }
                } else {
                    try await writer.body(chunk)
                }
            }
            try decoder?.finish()
            await self.copyStoredPart(relay.partial, \.after, storing: storing)
        } catch {
            // A truncated or failed upstream body (or one that does not decode): the client must
            // see a broken response (the connection closes), and nothing of it is stored.
            storing?.discard()
            self.logger.notice("upstream body failed", metadata: ["url": "\(request.uri)", "error": "\(error)"])
            return Outcome(status: response.head.status, cacheStatus: cacheStatus, reusable: false)
        }
        let commitEnded = self.markCommitting(committing, storing: storing)
        defer { commitEnded() }
        if !rangeUnsatisfiable {
            try await writer.end()
        }

        if let storing {
            let headers = upstreamHeaders.map { HeaderField(name: $0.name, value: $0.value) }
            if let partial = relay.partial {
                await self.commitPartial(partial, storing: storing, headers: headers, responseTime: responseTime, key: relay.storeAs?.key)
            } else {
                _ = await storing.commit(
                    status: response.head.status,
                    headers: headers,
                    responseTime: responseTime,
                    expectedLength: declaredLength,
                    budget: self.budget,
                    logger: self.logger
                )
            }
        }
        let answered = rangeUnsatisfiable ? 416 : (status206 ? 206 : response.head.status)
        return Outcome(status: answered, cacheStatus: cacheStatus, reusable: !closeAfter)
    }

    /// Marks `key` as being committed when a body is being stored for it (``CommittingAnswers``),
    /// from just before the client's last byte; returns what ends the mark.
    func markCommitting(_ key: CacheKey?, storing: StoringBody?) -> () -> Void {
        guard let key, storing?.isStoring == true, let flight = self.committing.begin(key) else { return {} }
        return { self.committing.end(key, flight: flight) }
    }
}

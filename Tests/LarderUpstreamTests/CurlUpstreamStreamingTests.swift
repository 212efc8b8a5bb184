// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderHTTP
    import LarderTestSupport
    import NIOCore
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    @Suite("CurlUpstream response body streaming", .serialized)
    struct CurlUpstreamStreamingTests {
        // What waits for the consumer is counted directly (bytes curl handed over minus bytes consumed),
        // not read from this process's RSS: other suites run in the same process at the same time.
        @Test("a slow consumer of a 256 MiB body keeps what waits in memory to a few chunks and gets every byte")
        func backpressureBoundsMemory() async throws {
            let length: Int64 = 256 << 20
            let origin = try await TestOrigin.start()
            origin.setRoute("/huge", TestResponse(body: .generated(length: length)))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(url: origin.url("/huge")))
            let handedOver = try #require(response.body.receivedBytes)
            var iterator = response.body.makeAsyncIterator()
            var consumed: Int64 = 0
            var mismatches = 0
            var mostWaiting: Int64 = 0
            // Stall first: without back-pressure the whole body would pile up in memory now.
            try await Task.sleep(for: .seconds(2))
            mostWaiting = handedOver.total - consumed
            while let chunk = try await iterator.next() {
                let expected = GeneratedBody.bytes(consumed..<(consumed + Int64(chunk.readableBytes)))
                if Array(chunk.readableBytesView) != expected {
                    mismatches += 1
                }
                consumed += Int64(chunk.readableBytes)
                mostWaiting = max(mostWaiting, handedOver.total - consumed)
                if consumed % (16 << 20) < Int64(chunk.readableBytes) {
                    // A slow consumer now and then.
                    try await Task.sleep(for: .milliseconds(200))
                    mostWaiting = max(mostWaiting, handedOver.total - consumed)
                }
            }

            #expect(consumed == length)
            #expect(handedOver.total == length)
            #expect(mismatches == 0)
            // The high watermark (8 chunks) plus the one chunk in flight, of at most 64 KiB each.
            // Without back-pressure the stall alone would leave the whole 256 MiB waiting.
            #expect(mostWaiting <= 9 * 64 * 1024, "\(mostWaiting) bytes waited for the consumer")
            try await origin.stop()
        }
    }
#endif

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

        @Test("a body paused by its consumer longer than the idle timeout is not timed out")
        func pausedBodyIsNotIdle() async throws {
            let length: Int64 = 32 << 20
            let origin = try await TestOrigin.start()
            origin.setRoute("/big", TestResponse(body: .generated(length: length)))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }
            var request = UpstreamRequest(url: origin.url("/big"))
            request.idleTimeout = .seconds(2)

            let response = try await upstream.execute(request)
            var iterator = response.body.makeAsyncIterator()
            var received = Int64(try await iterator.next()?.readableBytes ?? 0)
            // Far more than buffers hold, so curl is paused all this time: well past the idle timeout.
            try await Task.sleep(for: .seconds(5))
            while let chunk = try await iterator.next() {
                received += Int64(chunk.readableBytes)
            }

            #expect(received == length)
            try await origin.stop()
        }

        @Test("dropping the body early cancels the transfer and frees its connection")
        func droppingBodyCancels() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/huge", TestResponse(body: .generated(length: 1 << 30)))
            origin.setRoute("/next", .text("next"))
            // One connection per host: the next request only gets through once the dropped transfer is gone.
            let upstream = try CurlUpstream(configuration: .init(maxConnectionsPerHost: 1))
            defer { upstream.shutdown() }

            do {
                let response = try await upstream.execute(UpstreamRequest(url: origin.url("/huge")))
                var iterator = response.body.makeAsyncIterator()
                let first = try await iterator.next()
                #expect(
                    first.map { Array($0.readableBytesView) }
                        == first.map { GeneratedBody.bytes(0..<Int64($0.readableBytes)) })
            }

            let next = try await withTimeLimit(.seconds(5)) {
                try await upstream.execute(UpstreamRequest(url: origin.url("/next"))).body.collectBytes()
            }
            #expect(next == Array("next".utf8))
            try await origin.stop()
        }

        @Test("a response dropped without reading its body cancels the transfer")
        func droppingUnreadResponseCancels() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/huge", TestResponse(body: .generated(length: 1 << 30)))
            origin.setRoute("/next", .text("next"))
            let upstream = try CurlUpstream(configuration: .init(maxConnectionsPerHost: 1))
            defer { upstream.shutdown() }

            let status = try await upstream.execute(UpstreamRequest(url: origin.url("/huge"))).head.status

            #expect(status == 200)
            let next = try await withTimeLimit(.seconds(5)) {
                try await upstream.execute(UpstreamRequest(url: origin.url("/next"))).body.collectBytes()
            }
            #expect(next == Array("next".utf8))
            try await origin.stop()
        }
    }
#endif

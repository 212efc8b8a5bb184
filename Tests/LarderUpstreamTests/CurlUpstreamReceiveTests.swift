// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import Foundation
    import LarderTestSupport
    import Synchronization
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    /// A body received whole into a sink (`receive(_:into:)`, the precache's download): written on
    /// curl's thread, in order, and handed back once, with the head, when the body is complete.
    @Suite("CurlUpstream: a body received whole into a sink")
    struct CurlUpstreamReceiveTests {
        /// Collects what it is given.
        final class CollectingSink: UpstreamBodySink {
            private let collected = Mutex<[UInt8]>([])
            /// Fails the write that would pass this many bytes, when set.
            let failAfter: Int?

            init(failAfter: Int? = nil) {
                self.failAfter = failAfter
            }

            var bytes: [UInt8] { self.collected.withLock { $0 } }

            func write(_ bytes: UnsafeRawBufferPointer) throws {
                try self.collected.withLock { collected in
                    if let failAfter = self.failAfter, collected.count + bytes.count > failAfter {
                        throw CocoaError(.fileWriteOutOfSpace)
                    }
                    collected += bytes
                }
            }
        }

        @Test("the whole body is in the sink, in order, when receive returns the head")
        func wholeBody() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/big", TestResponse(body: .generated(length: 300_000), faults: [.chunkSize(7_000)]))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }
            let sink = CollectingSink()

            let head = try await upstream.receive(UpstreamRequest(url: origin.url("/big")), into: sink)

            #expect(head.status == 200)
            #expect(Bytes(sink.bytes) == Bytes(GeneratedBody.bytes(0..<300_000)))
            try await origin.stop()
        }

        @Test("a body cut short of its Content-Length throws .truncatedBody rather than returning the head")
        func shortBody() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/short", TestResponse(body: .generated(length: 100_000), faults: [.closeAfter(bytes: 40_000)]))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }
            let sink = CollectingSink()

            let error = await upstreamError {
                _ = try await upstream.receive(UpstreamRequest(url: origin.url("/short")), into: sink)
            }

            #expect(error?.kind == .truncatedBody)
            #expect(sink.bytes.count == 40_000)
            try await origin.stop()
        }

        @Test("a sink that throws ends the transfer with its own error")
        func sinkFailure() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/big", TestResponse(body: .generated(length: 300_000), faults: [.chunkSize(7_000)]))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }
            let sink = CollectingSink(failAfter: 50_000)

            await #expect(throws: CocoaError(.fileWriteOutOfSpace)) {
                _ = try await upstream.receive(UpstreamRequest(url: origin.url("/big")), into: sink)
            }
            #expect(sink.bytes.count <= 50_000)
            // The client still works: the failed transfer left nothing behind.
            let head = try await upstream.receive(UpstreamRequest(url: origin.url("/big")), into: CollectingSink())
            #expect(head.status == 200)
            try await origin.stop()
        }
    }
#endif

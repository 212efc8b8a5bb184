// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import NIOConcurrencyHelpers
    import NIOCore
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    @Suite("RequestBodyBuffer")
    struct RequestBodyBufferTests {
        /// Reads what is buffered into a fresh array of `capacity` bytes.
        private func read(_ buffer: RequestBodyBuffer, capacity: Int) -> (RequestBodyBuffer.ReadResult, [UInt8]) {
            var bytes = [UInt8](repeating: 0, count: capacity)
            let result = bytes.withUnsafeMutableBytes { buffer.read(into: $0) }
            if case .bytes(let count) = result {
                return (result, Array(bytes[0..<count]))
            }
            return (result, [])
        }

        @Test("reading waits for bytes, and their arrival wakes the reader once")
        func readerWaitsForBytes() async throws {
            let wakeUps = NIOLockedValueBox(0)
            let buffer = RequestBodyBuffer(declaredLength: nil, limit: 100, replayLimit: 0, url: "http://x/") {
                wakeUps.withLockedValue { $0 += 1 }
            }

            #expect(self.read(buffer, capacity: 10).0 == .wait)
            try await buffer.write(ByteBuffer(string: "hello world"))
            #expect(wakeUps.withLockedValue { $0 } == 1)
            #expect(self.read(buffer, capacity: 5).1 == Array("hello".utf8))
            #expect(self.read(buffer, capacity: 50).1 == Array(" world".utf8))
            #expect(self.read(buffer, capacity: 50).0 == .wait)
            buffer.finish()
            #expect(wakeUps.withLockedValue { $0 } == 2)
            #expect(self.read(buffer, capacity: 50).0 == .end)
        }

        @Test("a writer over the limit waits until curl has read enough")
        func writerWaitsAtLimit() async throws {
            let buffer = RequestBodyBuffer(declaredLength: nil, limit: 8, replayLimit: 0, url: "http://x/") {}
            let written = NIOLockedValueBox(false)

            let writer = Task {
                try await buffer.write(ByteBuffer(string: "0123456789"))
                written.withLockedValue { $0 = true }
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(written.withLockedValue { $0 } == false)
            #expect(self.read(buffer, capacity: 4).1 == Array("0123".utf8))
            try await writer.value
            #expect(written.withLockedValue { $0 } == true)
        }

        @Test("closing wakes a waiting writer with CancellationError")
        func closeWakesWriter() async throws {
            let buffer = RequestBodyBuffer(declaredLength: nil, limit: 4, replayLimit: 0, url: "http://x/") {}
            let writer = Task { try await buffer.write(ByteBuffer(string: "0123456789")) }
            try await Task.sleep(for: .milliseconds(50))

            buffer.close()

            await #expect(throws: CancellationError.self) { try await writer.value }
        }

        @Test("a body longer than declared fails on write, a shorter one on finish")
        func declaredLength() async throws {
            let long = RequestBodyBuffer(declaredLength: 3, limit: 100, replayLimit: 0, url: "http://x/") {}
            await #expect(throws: UpstreamError.self) { try await long.write(ByteBuffer(string: "four")) }
            #expect(long.failure?.kind == .invalidRequest)
            #expect(self.read(long, capacity: 10).0 == .failed)

            let short = RequestBodyBuffer(declaredLength: 5, limit: 100, replayLimit: 0, url: "http://x/") {}
            try await short.write(ByteBuffer(string: "four"))
            short.finish()
            #expect(short.failure?.kind == .invalidRequest)
            #expect(self.read(short, capacity: 10).0 == .failed)
        }

        @Test("a fixed body can be read again after a rewind")
        func rewindFixed() async throws {
            let fixed = RequestBodyBuffer(completeBody: ByteBuffer(string: "abc"), url: "http://x/")
            #expect(self.read(fixed, capacity: 10).1 == Array("abc".utf8))
            #expect(self.read(fixed, capacity: 10).0 == .end)
            #expect(fixed.rewind())
            #expect(self.read(fixed, capacity: 10).1 == Array("abc".utf8))
            #expect(self.read(fixed, capacity: 10).0 == .end)
        }

        @Test("a streamed body within the replay limit is read again from its start after a rewind, taken bytes first")
        func rewindStreamedWithinLimit() async throws {
            let streamed = RequestBodyBuffer(declaredLength: 11, limit: 100, replayLimit: 8, url: "http://x/") {}
            try await streamed.write(ByteBuffer(string: "hello "))
            try await streamed.write(ByteBuffer(string: "world"))
            // curl took "hello w" (a chunk and part of the next) when the connection turned out dead.
            #expect(self.read(streamed, capacity: 7).1 == Array("hello w".utf8))

            #expect(streamed.rewind())
            streamed.finish()
            #expect(self.read(streamed, capacity: 3).1 == Array("hel".utf8))
            #expect(self.read(streamed, capacity: 50).1 == Array("lo world".utf8))
            #expect(self.read(streamed, capacity: 50).0 == .end)
            #expect(streamed.failure == nil)
        }

        @Test("a streamed body of which curl took more than the replay limit cannot be rewound")
        func rewindStreamedOverLimit() async throws {
            let streamed = RequestBodyBuffer(declaredLength: nil, limit: 100, replayLimit: 8, url: "http://x/") {}
            try await streamed.write(ByteBuffer(string: "0123456789"))
            #expect(self.read(streamed, capacity: 8).1 == Array("01234567".utf8))
            #expect(streamed.rewind())
            #expect(self.read(streamed, capacity: 9).1 == Array("012345678".utf8))

            #expect(!streamed.rewind())
            #expect(self.read(streamed, capacity: 50).1 == Array("9".utf8))
        }
    }
#endif

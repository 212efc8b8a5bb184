// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import LarderHTTP
    import LarderTestSupport
    import NIOCore
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    @Suite("CurlUpstream requests and responses")
    struct CurlUpstreamRequestTests {
        @Test("GET delivers status, headers and the exact body bytes")
        func getDeliversHeadAndBody() async throws {
            let origin = try await TestOrigin.start()
            let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            origin.setRoute(
                "/asset.js",
                TestResponse(
                    headers: [(name: "Content-Type", value: "text/javascript"), (name: "X-Origin", value: "one")],
                    body: .bytes(body)
                )
            )
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(url: origin.url("/asset.js")))

            #expect(response.head.status == 200)
            #expect(response.head.reason == "OK")
            #expect(response.head.httpVersion == "1.1")
            #expect(response.head.headers.first(name: "content-type") == "text/javascript")
            #expect(response.head.headers.first(name: "X-Origin") == "one")
            #expect(response.head.headers.first(name: "Content-Length") == "100000")
            #expect(try await response.body.collectBytes() == body)
            try await origin.stop()
        }

        @Test("request headers reach the origin as given; curl adds no User-Agent and keeps a caller's Accept")
        func requestHeadersPassThrough() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/h", .text("ok"))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(
                UpstreamRequest(
                    url: origin.url("/h?q=1"),
                    headers: [
                        HeaderField(name: "Accept", value: "text/html"),
                        HeaderField(name: "X-Empty", value: ""),
                        HeaderField(name: "X-Trace", value: "abc"),
                        HeaderField(name: "Content-Length", value: "99"),
                    ]
                )
            )
            _ = try await response.body.collectBytes()

            let recorded = try #require(origin.requests("/h").first)
            #expect(recorded.method == "GET")
            #expect(recorded.target == "/h?q=1")
            #expect(recorded.headers.filter { $0.name.lowercased() == "accept" }.map(\.value) == ["text/html"])
            #expect(recorded.header("X-Empty") == "")
            #expect(recorded.header("X-Trace") == "abc")
            #expect(recorded.header("User-Agent") == nil)
            #expect(recorded.header("Content-Length") == nil)
            #expect(recorded.header("Expect") == nil)
            try await origin.stop()
        }

        @Test("the configured User-Agent is sent only when the request has none")
        func configuredUserAgent() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/ua", .text("ok"))
            let upstream = try CurlUpstream(configuration: .init(userAgent: "Larder/1"))
            defer { upstream.shutdown() }

            _ = try await upstream.execute(UpstreamRequest(url: origin.url("/ua"))).body.collectBytes()
            _ = try await upstream.execute(
                UpstreamRequest(url: origin.url("/ua"), headers: [HeaderField(name: "User-Agent", value: "Browser/9")])
            ).body.collectBytes()

            #expect(origin.requests("/ua").map { $0.header("User-Agent") } == ["Larder/1", "Browser/9"])
            try await origin.stop()
        }

        @Test("encoded bodies are delivered as the origin sent them, not decoded")
        func contentEncodingIsNotDecoded() async throws {
            let origin = try await TestOrigin.start()
            let encoded: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0xDE, 0xAD, 0xBE, 0xEF]  // not even valid gzip
            origin.setRoute(
                "/gz",
                TestResponse(headers: [(name: "Content-Encoding", value: "gzip")], body: .bytes(encoded))
            )
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(
                UpstreamRequest(url: origin.url("/gz"), headers: [HeaderField(name: "Accept-Encoding", value: "gzip")])
            )

            #expect(response.head.headers.first(name: "Content-Encoding") == "gzip")
            #expect(try await response.body.collectBytes() == encoded)
            #expect(origin.requests("/gz").first?.header("Accept-Encoding") == "gzip")
            try await origin.stop()
        }

        @Test("a chunked response body is de-chunked")
        func chunkedResponse() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute(
                "/chunked",
                TestResponse(body: .chunked([Array("hello ".utf8), Array("chunked ".utf8), Array("world".utf8)])))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(url: origin.url("/chunked")))

            #expect(response.head.headers.first(name: "Transfer-Encoding") == "chunked")
            #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "hello chunked world")
            try await origin.stop()
        }

        @Test("HEAD returns the head with its Content-Length and an empty body")
        func head() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/file", TestResponse(body: .bytes(Array(repeating: 1, count: 4096))))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(method: "HEAD", url: origin.url("/file")))

            #expect(response.head.status == 200)
            #expect(response.head.headers.first(name: "Content-Length") == "4096")
            #expect(try await response.body.collectBytes().isEmpty)
            #expect(origin.requests("/file").map(\.method) == ["HEAD"])
            try await origin.stop()
        }

        @Test("404 and 503 are responses with their bodies, not errors", arguments: [404, 503])
        func errorStatusesAreResponses(status: Int) async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/status", .text("status body", status: status))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(url: origin.url("/status")))

            #expect(response.head.status == status)
            #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "status body")
            try await origin.stop()
        }

        @Test("a redirect is returned to the caller, not followed")
        func redirectNotFollowed() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute(
                "/old",
                TestResponse(status: 302, headers: [(name: "Location", value: "/new")], body: .bytes(Array("moved".utf8)))
            )
            origin.setRoute("/new", .text("new"))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(url: origin.url("/old")))

            #expect(response.head.status == 302)
            #expect(response.head.headers.first(name: "Location") == "/new")
            #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "moved")
            #expect(origin.requestCount("/new") == 0)
            try await origin.stop()
        }

        @Test("other methods without a body are sent as given")
        func customMethodWithoutBody() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute("/thing", TestResponse(status: 204))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(method: "DELETE", url: origin.url("/thing")))
            let deleteBody = try await response.body.collectBytes()
            let post = try await upstream.execute(UpstreamRequest(method: "POST", url: origin.url("/thing")))
            let postBody = try await post.body.collectBytes()

            #expect(response.head.status == 204)
            #expect(deleteBody.isEmpty && postBody.isEmpty)
            let recorded = origin.requests("/thing")
            #expect(recorded.map(\.method) == ["DELETE", "POST"])
            // A POST without a body still says so, as servers may insist on a length.
            #expect(recorded.last?.header("Content-Length") == "0")
            try await origin.stop()
        }

        @Test("invalid requests are refused before anything is sent")
        func invalidRequests() async throws {
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }
            let requests = [
                UpstreamRequest(url: "ftp://127.0.0.1/file"),
                UpstreamRequest(url: "http://127.0.0.1/a b"),
                UpstreamRequest(method: "GE T", url: "http://127.0.0.1/"),
                UpstreamRequest(url: "http://127.0.0.1/", headers: [HeaderField(name: "X-Bad", value: "a\r\nInjected: yes")]),
                UpstreamRequest(url: "http://127.0.0.1/", headers: [HeaderField(name: "Bad Name", value: "x")]),
                UpstreamRequest(method: "HEAD", url: "http://127.0.0.1/", body: .bytes(ByteBuffer(string: "x"))),
            ]
            for request in requests {
                let error = await upstreamError { _ = try await upstream.execute(request) }
                #expect(error?.kind == .invalidRequest, "\(request.method) \(request.url)")
                #expect(error?.isConnectFailure == false)
            }
        }

        @Test("50 concurrent requests all complete with their own bodies")
        func concurrentRequests() async throws {
            let origin = try await TestOrigin.start()
            for index in 0..<50 {
                origin.setRoute("/item/\(index)", TestResponse(body: .generated(length: Int64(10_000 + index * 997))))
            }
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let lengths = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let response = try await upstream.execute(UpstreamRequest(url: origin.url("/item/\(index)")))
                        return (index, try await response.body.collectBytes())
                    }
                }
                var results: [Int: Int] = [:]
                for try await (index, bytes) in group {
                    #expect(Bytes(bytes) == Bytes(GeneratedBody.bytes(0..<Int64(10_000 + index * 997))), "item \(index)")
                    results[index] = bytes.count
                }
                return results
            }

            #expect(lengths.count == 50)
            try await origin.stop()
        }

        @Test("with one connection per host, queued requests wait for it instead of failing")
        func connectionLimitQueues() async throws {
            let origin = try await TestOrigin.start()
            origin.setRoute(
                "/slow", TestResponse(body: .bytes(Array("slow".utf8)), faults: [.delayHead(.milliseconds(600))]))
            let upstream = try CurlUpstream(configuration: .init(maxConnectionsPerHost: 1))
            defer { upstream.shutdown() }

            let clock = ContinuousClock()
            let start = clock.now
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        var request = UpstreamRequest(url: origin.url("/slow"))
                        request.connectTimeout = .seconds(1)
                        let response = try await upstream.execute(request)
                        return String(decoding: try await response.body.collectBytes(), as: UTF8.self)
                    }
                }
                for try await text in group {
                    #expect(text == "slow")
                }
            }

            // One at a time over the single connection: three delayed heads in sequence.
            #expect(clock.now - start >= .milliseconds(1800))
            try await origin.stop()
        }
    }
#endif

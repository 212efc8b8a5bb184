// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import Foundation
    import LarderTestSupport
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    @Suite("CurlUpstream TLS")
    struct CurlUpstreamTLSTests {
        @Test("HTTPS to an origin signed by the additional CA succeeds")
        func additionalCATrusted() async throws {
            let origin = try await TestOrigin.start(tls: true)
            origin.setRoute("/secure", .text("secret"))
            let caPath = try #require(origin.caCertificatePath)
            let upstream = try CurlUpstream(configuration: .init(trust: UpstreamTrust(additionalCAFile: caPath)))
            defer { upstream.shutdown() }

            let response = try await upstream.execute(UpstreamRequest(url: origin.url("/secure")))

            #expect(response.head.status == 200)
            #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "secret")
            // Close the kept-alive connection first: the origin's TLS shutdown would wait for it otherwise.
            upstream.shutdown()
            try await origin.stop()
        }

        @Test("HTTPS to an origin signed by an unknown CA fails with .tls as a connect failure")
        func unknownCARejected() async throws {
            let origin = try await TestOrigin.start(tls: true)
            origin.setRoute("/secure", .text("secret"))
            let upstream = try CurlUpstream()
            defer { upstream.shutdown() }

            let error = await upstreamError { _ = try await upstream.execute(UpstreamRequest(url: origin.url("/secure"))) }

            #expect(error?.kind == .tls)
            #expect(error?.isConnectFailure == true)
            #expect(origin.requestCount("/secure") == 0)
            try await origin.stop()
        }

        @Test("the host name is verified even for a trusted CA")
        func hostNameVerified() async throws {
            let origin = try await TestOrigin.start(tls: true)
            origin.setRoute("/secure", .text("secret"))
            let caPath = try #require(origin.caCertificatePath)
            let upstream = try CurlUpstream(configuration: .init(trust: UpstreamTrust(additionalCAFile: caPath)))
            defer { upstream.shutdown() }

            // The IPv4-mapped IPv6 address reaches the same listener, but the leaf only names localhost and 127.0.0.1.
            let error = await upstreamError {
                _ = try await upstream.execute(UpstreamRequest(url: "https://[::ffff:127.0.0.1]:\(origin.port)/secure"))
            }

            #expect(error?.kind == .tls)
            #expect(error?.isConnectFailure == true)
            try await origin.stop()
        }

        @Test("an unreadable additional CA file is a configuration error naming it")
        func unreadableCAFile() throws {
            let path = "/nonexistent/larder-ca.pem"
            let error = #expect(throws: UpstreamConfigurationError.self) {
                _ = try CurlUpstream(configuration: .init(trust: UpstreamTrust(additionalCAFile: path)))
            }
            #expect(error?.message.contains(path) == true)
        }

        @Test("an additional CA file without a PEM certificate is a configuration error")
        func caFileWithoutCertificate() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-not-a-ca-\(UUID()).pem").path
            try Data("just text\n".utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }

            let error = #expect(throws: UpstreamConfigurationError.self) {
                _ = try CurlUpstream(configuration: .init(trust: UpstreamTrust(additionalCAFile: path)))
            }
            #expect(error?.message.contains("no PEM certificate") == true)
        }
    }
#endif

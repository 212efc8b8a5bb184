// Tests of the libcurl client, which exists only with the `Curl` trait (Package.swift).
#if Curl
    import Foundation
    import LarderTestSupport
    import Logging
    import Testing

    @testable import LarderCurl
    @testable import LarderUpstream

    /// The trusted roots curl reads from one private file (parsed once per client), written again
    /// only when a file they come from changes.
    @Suite("Upstream trust bundle file")
    struct TrustBundleFileTests {
        @Test("the roots go to a private file that leaves nothing behind; a changed CA file is written again, a broken one keeps the last")
        func rebuiltOnlyOnChange() throws {
            let first = try TestCertificateAuthority(commonName: "First Test CA")
            let second = try TestCertificateAuthority(commonName: "Second Test CA, a longer name")
            let caFile = try first.writeCertificatePEMToTemporaryFile()
            defer { try? FileManager.default.removeItem(atPath: caFile) }
            let bundle = try #require(
                try TrustBundleFile(trust: UpstreamTrust(additionalCAFile: caFile), checkInterval: .zero, logger: Logger(label: "test")))
            let path = bundle.currentPath()
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600, "the file read through the path is private")
            // Read through its descriptor: its name is gone from the temporary folder already.
            #expect(path.hasPrefix("/proc/self/fd/"))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path).hasSuffix(" (deleted)"))
            let written = try String(contentsOfFile: path, encoding: .utf8)
            #expect(written.hasSuffix(try first.certificatePEM()))
            if let system = UpstreamTrust.systemBundlePath() {
                #expect(written.hasPrefix(try String(contentsOfFile: system, encoding: .utf8)))
            }
            // Nothing changed: the same file, which curl's cache knows.
            #expect(bundle.currentPath() == path)

            try second.certificatePEM().write(toFile: caFile, atomically: true, encoding: .utf8)
            let rebuilt = bundle.currentPath()
            #expect(rebuilt != path)
            #expect(try String(contentsOfFile: rebuilt, encoding: .utf8).hasSuffix(try second.certificatePEM()))
            #expect(try String(contentsOfFile: path, encoding: .utf8) == written, "the earlier file stays readable under its own path")
            #expect(bundle.currentPath() == rebuilt)

            try "not a certificate\n".write(toFile: caFile, atomically: true, encoding: .utf8)
            #expect(bundle.currentPath() == rebuilt)
        }

        @Test("the source files are looked at no more than once per check interval")
        func lookedAtOncePerInterval() throws {
            let caFile = try TestCertificateAuthority().writeCertificatePEMToTemporaryFile()
            defer { try? FileManager.default.removeItem(atPath: caFile) }
            let start = ContinuousClock.now
            var stamps = TrustSourceStamps(of: UpstreamTrust(additionalCAFile: caFile), checkInterval: .seconds(10), now: start)
            try TestCertificateAuthority(commonName: "Another Test CA").certificatePEM().write(
                toFile: caFile, atomically: true, encoding: .utf8)
            let seen = [5, 10, 20].map { stamps.haveChanged(now: start + .seconds($0)) }
            // Not looked at before the interval; then changed once, and not again.
            #expect(seen == [false, true, false])
        }

        @Test("one client's kept store widens nothing: after a trusted origin, another CA's origin and a wrong host name still fail")
        func cachedStoreStaysStrict() async throws {
            let trusted = try await TestOrigin.start(tls: true)
            let other = try await TestOrigin.start(tls: true)
            trusted.setRoute("/secure", .text("trusted"))
            other.setRoute("/secure", .text("other"))
            let caPath = try #require(trusted.caCertificatePath)
            let upstream = try CurlUpstream(configuration: .init(trust: UpstreamTrust(additionalCAFile: caPath)))

            for _ in 0..<2 {
                let response = try await upstream.execute(UpstreamRequest(url: trusted.url("/secure")))
                #expect(response.head.status == 200)
                #expect(String(decoding: try await response.body.collectBytes(), as: UTF8.self) == "trusted")
                let otherCA = await upstreamError { _ = try await upstream.execute(UpstreamRequest(url: other.url("/secure"))) }
                #expect(otherCA?.kind == .tls)
                let wrongName = await upstreamError {
                    _ = try await upstream.execute(UpstreamRequest(url: "https://[::ffff:127.0.0.1]:\(trusted.port)/secure"))
                }
                #expect(wrongName?.kind == .tls)
            }
            #expect(other.requestCount("/secure") == 0)
            upstream.shutdown()
            try await trusted.stop()
            try await other.stop()
        }
    }
#endif

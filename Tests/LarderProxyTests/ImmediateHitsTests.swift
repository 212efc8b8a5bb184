import Foundation
import LarderHTTP
import LarderUpstream
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import LarderProxy
@testable import LarderStore

/// The event-loop answers for plain hits, over a real store: what they say, and that a prepared
/// answer never outlives what the store holds.
@Suite("Immediate hits: prepared answers follow the store")
struct ImmediateHitsTests {
    final class Fixture: Sendable {
        let directory: String
        let store: Store
        let proxy: ForwardProxy
        let offline: OfflineSwitch
        let statistics = ProxyStatistics(startedAt: Date())
        let hits: ImmediateHits

        init(now: (@Sendable () -> Date)? = nil, configure: (inout ProxyConfiguration) -> Void = { _ in }) throws {
            self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("immediate-\(UUID().uuidString)").path
            // Remembered lookups trusted for a minute: a loaded machine may take seconds between two
            // steps of a test; ending them by commits is what these tests check.
            self.store = try Store(directory: self.directory, migratingUpTo: nil, lookupTrust: 60)
            let logger = Logger(label: "test")
            var configuration = ProxyConfiguration()
            if let now { configuration.now = now }
            configure(&configuration)
            // The server's own assembly of the parts that answer.
            let core = ServingCore(
                store: self.store, upstream: UnreachableUpstream(), configuration: configuration, background: BackgroundWork(),
                logger: logger)
            self.proxy = core.proxy
            self.offline = core.offline
            self.hits = core.immediateHits(
                own: RequestRoute.OwnAuthorities(port: 8080, listenHost: "127.0.0.1"),
                rules: RequestRoute.Rules(),
                reach: nil,
                log: RequestLog(statistics: self.statistics, logger: logger, now: core.configuration.now),
                prepared: PreparedHits()
            )
        }

        deinit {
            try? self.store.close()
            try? FileManager.default.removeItem(atPath: self.directory)
        }

        /// Stores `body` for `url` and loads it the way the ordinary path does (lookup and body
        /// into memory), so the next plain request may be answered at once.
        @discardableResult
        func store(
            _ url: String,
            body: String,
            headers: [(String, String)] = [("Cache-Control", "max-age=3600")],
            kind: EntryKind = .runtime,
            responseTime: Date = Date(),
            load: Bool = true
        ) async throws -> CacheKey {
            let key = try CacheKey(url: url)
            let writer = try self.store.makeBodyWriter()
            try writer.write(contentsOf: Array(body.utf8))
            let head = StoredResponseHead(
                url: url,
                status: 200,
                headers: headers.map { HeaderField(name: $0.0, value: $0.1) },
                requestTime: responseTime,
                responseTime: responseTime
            )
            let entry = try await writer.commit(key: key, head: head, kind: kind, expectedLength: nil)
            if load {
                try await self.load(key)
                self.proxy.smallBodies.insert(ByteBuffer(string: body), hash: entry.bodyHash)
            }
            return key
        }

        func load(_ key: CacheKey) async throws {
            _ = try await self.store.variants(of: key)
        }

        /// The immediate answer for a request of `uri` (origin-form inside `tunnel`), or nil. With `refresh`, the store's lookup
        /// is read again first when its second of trust has passed (a loaded machine may take that
        /// long between two steps of a test), as the ordinary path would.
        func answer(
            _ uri: String,
            method: HTTPMethod = .GET,
            version: HTTPVersion = .http1_1,
            headers: [(String, String)] = [],
            tunnel: TunnelOrigin? = nil,
            refresh: Bool = true
        ) async throws -> (head: String, body: String)? {
            if refresh, let key = try? CacheKey(url: (tunnel?.base ?? "") + uri) {
                try await self.load(key)
            }
            var requestHeaders = HTTPHeaders([("Host", "x")])
            requestHeaders.add(contentsOf: headers)
            let request = HTTPRequestHead(version: version, method: method, uri: uri, headers: requestHeaders)
            guard let answer = self.hits.answer(request, tunnel: tunnel, allocator: ByteBufferAllocator()) else { return nil }
            // A small body comes in the head's buffer, after the blank line.
            let written = String(buffer: answer.head)
            let end = try #require(written.range(of: "\r\n\r\n")).upperBound
            let (head, inline) = (String(written[..<end]), String(written[end...]))
            switch answer.body {
            case .bytes(let body):
                return (head, inline + String(buffer: body))
            case .file(let file):
                return (head, inline + (try Self.read(file)))
            case nil:
                return (head, inline)
            }
        }

        /// The bytes the ordinary path (`ForwardProxy.serveCacheable`) writes for the request, as
        /// NIO's response encoder puts them on the wire.
        func ordinaryAnswer(
            _ uri: String,
            method: HTTPMethod = .GET,
            version: HTTPVersion = .http1_1,
            headers: [(String, String)] = []
        ) async throws -> (head: String, body: String) {
            var requestHeaders = HTTPHeaders([("Host", "x")])
            requestHeaders.add(contentsOf: headers)
            let request = HTTPRequestHead(version: version, method: method, uri: uri, headers: requestHeaders)
            let channel = EmbeddedChannel(handler: HTTPResponseEncoder())
            // The encoder frames a response by its request's method and version.
            var head = ByteBuffer()
            var body = ByteBuffer()
            for written in try await self.ordinaryParts(request) {
                let part: HTTPServerResponsePart
                switch written {
                case .http(let written):
                    part = written
                case .file(let file, _):
                    // What `sendfile` sends, as the encoder would pass it on.
                    part = .body(.byteBuffer(ByteBuffer(string: try Self.read(file))))
                default:
                    continue
                }
                try channel.writeOutbound(part)
                while var bytes = try channel.readOutbound(as: ByteBuffer.self) {
                    if case .head = part { head.writeBuffer(&bytes) } else { body.writeBuffer(&bytes) }
                }
            }
            _ = try channel.finish()
            return (String(buffer: head), String(buffer: body))
        }

        /// The bytes a stored body file would send, read with `pread` as `sendfile` reads them.
        static func read(_ file: StoredBodyFile) throws -> String {
            let region = file.region
            return try region.fileHandle.withUnsafeFileDescriptor { descriptor in
                var bytes = [UInt8](repeating: 0, count: region.readableBytes)
                let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(region.readerIndex)) }
                return String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
            }
        }
    }

    @Test("a fresh stored response is answered whole: status line, stored headers, Age, Cache-Status, Via, length")
    func answerBytes() async throws {
        let fixture = try Fixture()
        let storedAt = ContinuousClock.now
        try await fixture.store(
            "http://site.example/a.js", body: "ONE", headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "text/javascript")])
        let answer = try #require(await fixture.answer("http://site.example/a.js"))
        let elapsed = ContinuousClock.now - storedAt
        #expect(answer.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.head.hasSuffix("\r\n\r\n"))
        #expect(answer.head.contains("\r\nContent-Type: text/javascript\r\n"))
        #expect(answer.head.contains("\r\ncontent-length: 3\r\n"))
        #expect(answer.head.contains("\r\nVia: 1.1 larder\r\n"))
        // Age counts whole seconds since the store; a loaded machine may take a few between the steps.
        let age = try #require(Self.headerValue("age", in: answer.head).flatMap { Int($0) })
        #expect(age >= 0 && Duration.seconds(age) <= elapsed + .seconds(1))
        #expect(answer.head.contains("\r\nCache-Status: larder; hit; ttl="))
        #expect(!answer.head.lowercased().contains("connection: close"))
        #expect(answer.body == "ONE")
        // Prepared now: the same again, and a HEAD has no body.
        #expect(try await fixture.answer("http://site.example/a.js")?.body == "ONE")
        #expect(try await fixture.answer("http://site.example/a.js", method: .HEAD)?.body == "")
        #expect(fixture.statistics.counts()[.hit] == 3)

        let old = try #require(await fixture.answer("http://site.example/a.js", version: .http1_0))
        #expect(old.head.hasPrefix("HTTP/1.0 200 OK\r\n"))
        #expect(old.head.contains("\r\nConnection: close\r\n\r\n"))
    }

    /// The value of the first header `name` (lowercase) in a serialised response head.
    static func headerValue(_ name: String, in head: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    @Test("a new copy, a purge and offline mode end a prepared answer at once")
    func followsTheStore() async throws {
        let fixture = try Fixture()
        let url = "http://site.example/b.css"
        let key = try await fixture.store(url, body: "ONE")
        #expect(try await fixture.answer(url)?.body == "ONE")
        #expect(try await fixture.answer(url)?.body == "ONE")

        // Stored again (by this process): the prepared answer is gone with the lookup it came from.
        try await fixture.store(url, body: "TWO", load: false)
        #expect(try await fixture.answer(url, refresh: false) == nil, "the ordinary path reads the index again")
        try await fixture.load(key)
        fixture.proxy.smallBodies.insert(ByteBuffer(string: "TWO"), hash: try #require(await fixture.store.entry(for: key)).bodyHash)
        #expect(try await fixture.answer(url)?.body == "TWO")

        fixture.offline.isOffline = true
        #expect(try await fixture.answer(url) == nil, "offline answers go the ordinary way")
        fixture.offline.isOffline = false

        try await fixture.store.removeEntry(for: key)
        #expect(try await fixture.answer(url, refresh: false) == nil)
        #expect(try await fixture.answer(url) == nil)
    }

    @Test("a body too large for memory goes from its file, whole; a vanished or resized file goes the ordinary way")
    func fileBodies() async throws {
        let fixture = try Fixture()
        let large = String(repeating: "0123456789abcdef", count: 12_800)  // 200 KiB
        let url = "http://site.example/large.bin"
        let key = try await fixture.store(url, body: large, load: false)
        try await fixture.load(key)
        // Nothing of it in memory: the answer is its file.
        let answer = try #require(await fixture.answer(url))
        #expect(answer.body == large)
        #expect(answer.head.contains("\r\ncontent-length: 204800\r\n"))
        #expect(try await fixture.answer(url, method: .HEAD)?.body == "")
        let entry = try #require(await fixture.store.entry(for: key))
        guard
            case .file(let file) = try #require(
                fixture.hits.answer(HTTPRequestHead(version: .http1_1, method: .GET, uri: url), allocator: ByteBufferAllocator())
            ).body
        else {
            Issue.record("a 200 KiB body is not answered from its file")
            return
        }
        #expect(file.region.readableBytes == 204_800)

        // A file not its indexed size (damaged on disk) is not sent as if whole.
        let path = entry.bodyPath
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1000)
        try handle.close()
        #expect(try await fixture.answer(url) == nil)
        // Nor a file that vanished.
        try FileManager.default.removeItem(atPath: path)
        #expect(try await fixture.answer(url) == nil)
    }

    @Test("inside intercepted TLS, a body from its file is answered at once as a plain one is; an absolute target goes the ordinary way")
    func insideTLS() async throws {
        let fixture = try Fixture()
        let tunnel = TunnelOrigin(scheme: "https", host: "site.example", port: 443)
        let large = String(repeating: "0123456789abcdef", count: 12_800)  // 200 KiB, over the small-body limit
        try await fixture.store("https://site.example/large.bin", body: large)
        // From its file, which the connection's handler reads through TLS (`sendfile` would pass it by).
        #expect(try await fixture.answer("/large.bin", tunnel: tunnel)?.body == large)
        #expect(try await fixture.answer("/large.bin", method: .HEAD, tunnel: tunnel)?.head.contains("content-length: 204800") == true)
        try await fixture.store("https://site.example/small.js", body: "S")
        #expect(try await fixture.answer("/small.js", tunnel: tunnel)?.body == "S")
        #expect(try await fixture.answer("https://site.example/small.js", tunnel: tunnel) == nil)
        // Another origin's entry is not this tunnel's.
        try await fixture.store("https://other.example/small.js", body: "O")
        #expect(
            try await fixture.answer("/small.js", tunnel: TunnelOrigin(scheme: "https", host: "other.example", port: 443))?.body == "O")
        #expect(try await fixture.answer("/small.js", tunnel: TunnelOrigin(scheme: "https", host: "site.example", port: 8443)) == nil)
    }

    @Test("what needs the ordinary path does not get an immediate answer")
    func ordinaryPath() async throws {
        let fixture = try Fixture()
        // Stale under the http strategy: it must be revalidated.
        try await fixture.store(
            "http://site.example/stale.js", body: "S", headers: [("Cache-Control", "max-age=60")],
            responseTime: Date(timeIntervalSinceNow: -120))
        #expect(try await fixture.answer("http://site.example/stale.js") == nil)
        // Precached assets are cache-first whatever their age.
        try await fixture.store(
            "http://site.example/game.js", body: "G", headers: [("Cache-Control", "max-age=60")], kind: .precached,
            responseTime: Date(timeIntervalSinceNow: -120))
        #expect(try await fixture.answer("http://site.example/game.js")?.head.contains("Cache-Status: larder; hit; ttl=-") == true)
        #expect(try await fixture.answer("http://site.example/game.js")?.head.contains("detail=precached") == true)
        // Request directives, conditionals and ranges.
        try await fixture.store("http://site.example/c.js", body: "C")
        for header in [("Cache-Control", "no-cache"), ("Pragma", "no-cache"), ("Range", "bytes=0-0"), ("If-None-Match", "\"x\"")] {
            #expect(try await fixture.answer("http://site.example/c.js", headers: [header]) == nil, "\(header.0)")
        }
        #expect(try await fixture.answer("http://site.example/c.js") != nil)
        // A stored gzip body goes as is only to a client that accepts gzip.
        try await fixture.store(
            "http://site.example/z.js", body: "Z", headers: [("Cache-Control", "max-age=60"), ("Content-Encoding", "gzip")])
        #expect(try await fixture.answer("http://site.example/z.js", headers: [("Accept-Encoding", "gzip, br")]) != nil)
        #expect(try await fixture.answer("http://site.example/z.js") == nil)
        // Responses that vary on request headers.
        try await fixture.store("http://site.example/v.js", body: "V", headers: [("Cache-Control", "max-age=60"), ("Vary", "Origin")])
        #expect(try await fixture.answer("http://site.example/v.js") == nil)
        #expect(try await fixture.answer("http://site.example/v.js", headers: [("Origin", "http://a.example")]) == nil)
        try await fixture.store("http://site.example/all.js", body: "A", headers: [("Cache-Control", "max-age=60"), ("Vary", "*")])
        #expect(try await fixture.answer("http://site.example/all.js") == nil)
        // ... but not on Accept-Encoding alone, and a precached file answers whatever it varies on.
        try await fixture.store(
            "http://site.example/ae.js", body: "E", headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Encoding")])
        #expect(try await fixture.answer("http://site.example/ae.js")?.body == "E")
        try await fixture.store("http://site.example/pv.js", body: "P", headers: [("Vary", "Origin")], kind: .precached)
        #expect(try await fixture.answer("http://site.example/pv.js", headers: [("Origin", "http://a.example")])?.body == "P")
        // Never seen, and the proxy's own address.
        #expect(try await fixture.answer("http://site.example/unknown.js") == nil)
        #expect(try await fixture.answer("http://127.0.0.1:8080/dev/offline") == nil)
    }

    @Test(
        "a declared GET's answer goes the ordinary way, which decides per request whether it may have it, whatever its strategy",
        arguments: [EntryKind.runtime, .precached])
    func declaredAnswer(kind: EntryKind) async throws {
        let url = "http://site.example/api/today"
        let fixture = try Fixture(configure: {
            $0.declaredRequests = [
                DeclaredRequest(
                    name: "today", method: "GET", url: try! TextTemplate(parsing: url),
                    headers: [DeclaredRequest.Header(name: "Authorization", value: try! TextTemplate(parsing: "Bearer secret"))],
                    bodyKey: .exact, timeZone: TimeZone(identifier: "UTC")!)
            ]
        })
        // Fresh, as a script: a runtime copy is served from the cache under `http`, a precached one
        // would be cache-first but for the declared request.
        try await fixture.store(
            url, body: "MINE", headers: [("Cache-Control", "max-age=3600"), ("Content-Type", "text/javascript")], kind: kind)
        #expect(try await fixture.answer(url) == nil)
        #expect(try await fixture.answer(url, headers: [("Authorization", "Bearer secret")]) == nil)
        // The ordinary path withholds it from a request without the declared credentials.
        let withheld = try await fixture.ordinaryAnswer(url)
        #expect(withheld.head.hasPrefix("HTTP/1.1 502"))
        #expect(!withheld.body.contains("MINE"))
    }
}

/// An upstream where every host is down.
struct UnreachableUpstream: Upstream {
    func execute(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        throw UpstreamError(kind: .connectionRefused, message: "test: unreachable", url: request.url)
    }
}

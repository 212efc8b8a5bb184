import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1
import Testing

@testable import LarderProxy

@Suite("Offline misses: the record")
struct OfflineMissesTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)

    private static func url(_ text: String) throws -> HTTPURL {
        try HTTPURL(parsing: text)
    }

    private static func record(_ misses: OfflineMisses, _ text: String, referer: String? = nil, at seconds: Double) throws {
        misses.record(url: try Self.url(text), method: "GET", referer: referer, reason: .upstreamUnreachable, now: Self.start + seconds)
    }

    @Test("newest first; a repeat counts, keeps its first time and moves to the front")
    func orderAndDeduplication() throws {
        let misses = OfflineMisses(capacity: 10)
        try Self.record(misses, "http://app.example/a.js", at: 1)
        try Self.record(misses, "http://app.example/b.js", referer: "http://app.example/", at: 2)
        try Self.record(misses, "http://app.example/a.js#x", referer: "http://app.example/page", at: 3)
        let snapshot = misses.snapshot()
        #expect(snapshot.map(\.url) == ["http://app.example/a.js", "http://app.example/b.js"], "the fragment is not part of the URL")
        let a = try #require(snapshot.first)
        #expect(a.count == 2)
        #expect(a.firstSeen == Self.start + 1)
        #expect(a.lastSeen == Self.start + 3)
        #expect(a.referer == "http://app.example/page")
        #expect(a.origin == "http://app.example")
        #expect(snapshot.last?.count == 1)
    }

    @Test("at capacity the URL missed longest ago gives way; a repeat keeps a URL in")
    func bounded() throws {
        let misses = OfflineMisses(capacity: 3)
        for (index, name) in ["one", "two", "three"].enumerated() {
            try Self.record(misses, "http://app.example/\(name)", at: Double(index))
        }
        try Self.record(misses, "http://app.example/one", at: 10)
        try Self.record(misses, "http://app.example/four", at: 11)
        #expect(misses.snapshot().map(\.url) == ["http://app.example/four", "http://app.example/one", "http://app.example/three"])
        for index in 0..<500 {
            try Self.record(misses, "http://app.example/many/\(index)", at: 100 + Double(index))
        }
        #expect(misses.snapshot().count == 3)
        #expect(misses.snapshot().first?.url == "http://app.example/many/499")
    }

    @Test("a long Referer is cut; forget removes a URL")
    func refererAndForget() throws {
        let misses = OfflineMisses(capacity: 3)
        let long = "http://app.example/" + String(repeating: "r", count: 10_000)
        try Self.record(misses, "http://app.example/a.js", referer: long, at: 1)
        #expect(misses.snapshot().first?.referer?.utf8.count == OfflineMisses.maximumRefererLength)
        misses.forget(url: "http://app.example/a.js")
        #expect(misses.snapshot().isEmpty)
    }

    @Test("one record per method and endpoint: new cache-busters count on the same row; the latest URL is kept; bounded per endpoint")
    func endpoints() throws {
        let misses = OfflineMisses(capacity: 2)
        for (index, stamp) in ["1795492696035", "1795492697035", "1795492698035"].enumerated() {
            try Self.record(misses, "http://app.example/api/feed?_=\(stamp)", at: Double(index))
        }
        misses.record(url: try Self.url("http://app.example/api/feed"), method: "POST", referer: nil, reason: .offline, now: Self.start + 5)
        let snapshot = misses.snapshot()
        #expect(snapshot.map(\.method) == ["POST", "GET"])
        let feed = try #require(snapshot.last)
        #expect(feed.count == 3)
        #expect(feed.url == "http://app.example/api/feed?_=1795492698035")
        #expect(feed.endpoint == "http://app.example/api/feed")
        #expect(feed.firstSeen == Self.start)
        misses.forget(url: "http://app.example/api/feed?_=1795492699999")
        #expect(misses.snapshot().isEmpty, "added to precache: the endpoint is forgotten, of any method")

        let browser = OfflineMisses(capacity: 2, grouping: .ignoreQuery)
        for nonce in ["13:1", "13:2", "13:3"] {
            browser.record(
                url: try Self.url("http://update.googleapis.com/service/update2/json?cup2key=\(nonce)"), method: "POST", referer: nil,
                reason: .upstreamUnreachable, now: Self.start)
        }
        #expect(browser.snapshot().map(\.count) == [3])
    }

    @Test("what the detail says after the reason is kept on the miss, and the declared request withheld from it")
    func causes() throws {
        let misses = OfflineMisses()
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "http://api.example/graphql", headers: [:])
        misses.record(
            head, url: try Self.url("http://api.example/graphql"),
            cacheStatus: .forward(.method, detail: "upstream-unreachable+declared-withheld"), declaredRequest: "today", now: Date())
        let miss = try #require(misses.snapshot().first)
        #expect(miss.reason == .upstreamUnreachable)
        #expect(miss.causes == ["declared-withheld"])
        #expect(miss.declaredRequest == "today")
        #expect(miss.methodNotStored == true)
        #expect(OfflineMisses.Reason.causes(.forward(.uriMiss, detail: "offline+health-check")) == ["health-check"])
        #expect(OfflineMisses.Reason.causes(.forward(.uriMiss, detail: "offline")).isEmpty)
    }

    @Test("only answers the origin could not give and nothing stored could replace are recorded")
    func whatCounts() throws {
        let misses = OfflineMisses()
        let head = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: "http://app.example/x", headers: ["Referer": "http://app.example/"])
        let url = try Self.url("http://app.example/x")
        for status in [
            CacheStatus.hit(detail: "offline"), .hit(detail: "upstream-unreachable"), .forward(.uriMiss, detail: "cache-only"),
            .forward(.uriMiss, status: 200, stored: true), .forward(.uriMiss, status: 503, detail: "upstream-unreachable"),
            .forward(.bypass, detail: "offline"),
        ] {
            misses.record(head, url: url, cacheStatus: status, now: Date())
        }
        #expect(misses.snapshot().isEmpty)
        misses.record(head, url: url, cacheStatus: .forward(.uriMiss, detail: "upstream-backoff"), now: Date())
        let miss = try #require(misses.snapshot().first)
        #expect(miss.reason == .upstreamBackoff)
        #expect(miss.referer == "http://app.example/")
        #expect(miss.method == "GET")
    }
}

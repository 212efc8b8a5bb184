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

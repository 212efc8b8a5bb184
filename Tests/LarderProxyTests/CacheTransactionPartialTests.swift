import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1
import Testing

@testable import LarderProxy

/// The cache transaction's partial-content decisions (RFC 9111 sections 3.3 and 3.4): answering
/// from a stored part, forwarding ranges, completing parts, and what a 206 is stored as.
@Suite("Cache transaction: partial content")
struct CacheTransactionPartialTests {
    typealias T = CacheTransactionTests
    static let now = CacheTransactionTests.now

    /// A stored part: `held` bytes of 10, `age` seconds old, with `etag` when given.
    static func part(_ held: Range<Int64>, etag: String? = "\"v1\"", age: TimeInterval = 0) -> CacheTransaction.Candidate {
        let time = now.addingTimeInterval(-age)
        var fields = [
            HeaderField(name: "Cache-Control", value: "max-age=60"),
            HeaderField(name: "Content-Range", value: ByteRangeRequest.contentRange(held, length: 10)),
            HeaderField(name: "Content-Length", value: String(held.count)),
        ]
        if let etag { fields.append(HeaderField(name: "ETag", value: etag)) }
        let entry = CachedEntry(
            key: CacheKey(url: T.url).partial, url: T.url.absoluteString, status: 206, headers: fields, varyRequestHeaders: [],
            kind: .runtime, bodyHash: "part-\(held)", bodySize: Int64(held.count), bodyPath: "/nonexistent", requestTime: time,
            responseTime: time, storedAt: time)
        let freshness = ResponseFreshness(status: 206, header: { fields[$0] }, requestTime: time, responseTime: time)
        return CacheTransaction.Candidate(entry: entry, freshness: freshness)
    }

    /// A 206's headers for `range` of 10 bytes.
    static func answer206(_ range: Range<Int64>, etag: String? = "\"v1\"", cacheControl: String = "max-age=60") -> [HeaderField] {
        var fields = [
            HeaderField(name: "Cache-Control", value: cacheControl),
            HeaderField(name: "Content-Range", value: ByteRangeRequest.contentRange(range, length: 10)),
            HeaderField(name: "Content-Length", value: String(range.count)),
        ]
        if let etag { fields.append(HeaderField(name: "ETag", value: etag)) }
        return fields
    }

    /// The plan of a fetch action; nil for any other.
    static func plan(_ action: CacheTransaction.Action) -> CacheTransaction.UpstreamPlan? {
        if case .fetch(let plan) = action { plan } else { nil }
    }

    /// The relay of a relay action; nil for any other.
    static func relay(_ action: CacheTransaction.Action) -> CacheTransaction.Relay? {
        if case .relay(let relay) = action { relay } else { nil }
    }

    @Test("a fresh part answers a range it holds (byte range, open-ended, suffix); nothing else")
    func answersHeldRanges() {
        for range in ["bytes=6-8", "bytes=6-", "bytes=-1", "bytes=-5"] {
            var transaction = T.transaction(headers: [("Range", range)], partial: Self.part(4..<10))
            #expect(T.Step(transaction.begin()) == .stored(detail: "partial", cacheStatus: nil, refresh: false), "\(range)")
        }
        var notHeld = T.transaction(headers: [("Range", "bytes=0-1")], partial: Self.part(4..<10))
        #expect(Self.plan(notHeld.begin())?.range == .client, "bytes not held: the client's range goes upstream")
        var stale = T.transaction(headers: [("Range", "bytes=6-8")], partial: Self.part(4..<10, age: 120))
        #expect(Self.plan(stale.begin())?.range == .client, "a stale part is not used")
        var noCache = T.transaction(headers: [("Range", "bytes=6-8"), ("Cache-Control", "no-cache")], partial: Self.part(4..<10))
        #expect(Self.plan(noCache.begin())?.range == .client)
    }

    @Test("offline or with the origin failing, a part answers a range it holds, stale or not; not one it lacks")
    func disconnected() {
        var offline = T.transaction(headers: [("Range", "bytes=6-8")], offline: true, partial: Self.part(4..<10, age: 120))
        #expect(T.Step(offline.begin()) == .stored(detail: "offline", cacheStatus: nil, refresh: false, disconnected: true))
        var lacking = T.transaction(headers: [("Range", "bytes=0-1")], offline: true, partial: Self.part(4..<10))
        #expect(
            T.Step(lacking.begin())
                == .page(.disconnected(status: 504, reason: nil, unusable: nil), cacheStatus: "larder; fwd=uri-miss; detail=offline"))
        var whole = T.transaction(offline: true, partial: Self.part(4..<10))
        #expect(
            T.Step(whole.begin())
                == .page(.disconnected(status: 504, reason: nil, unusable: nil), cacheStatus: "larder; fwd=uri-miss; detail=offline"))
        var failing = T.transaction(headers: [("Range", "bytes=6-8")], partial: Self.part(4..<10, age: 120))
        _ = failing.begin()
        #expect(
            T.Step(failing.upstreamFailed(isTimeout: false, description: "refused", now: Self.now))
                == .stored(detail: "upstream-unreachable", cacheStatus: nil, refresh: false, disconnected: true))
    }

    @Test("with a complete copy, a range is cut from it, not forwarded")
    func completeCopyWins() {
        var stale = T.transaction(T.entry(age: 120), headers: [("Range", "bytes=0-1")], partial: Self.part(0..<5))
        #expect(Self.plan(stale.begin())?.range == CacheTransaction.UpstreamRange.none)
        var fresh = T.transaction(T.entry(), headers: [("Range", "bytes=0-1")], partial: Self.part(0..<5))
        #expect(T.Step(fresh.begin()) == .stored(detail: nil, cacheStatus: nil, refresh: false))
    }

    @Test("a request for the whole asks for the bytes that complete the part, with its strong tag as If-Range")
    func completionRequest() {
        var prefix = T.transaction(partial: Self.part(0..<5))
        #expect(T.Step(prefix.begin()) == .join)
        #expect(Self.plan(prefix.lead())?.range == .completing(value: "bytes=5-", ifRange: "\"v1\""))
        var suffix = T.transaction(partial: Self.part(4..<10, etag: nil))
        _ = suffix.begin()
        #expect(Self.plan(suffix.lead())?.range == .completing(value: "bytes=0-3", ifRange: nil))
        var weak = T.transaction(partial: Self.part(4..<10, etag: "W/\"v1\""))
        _ = weak.begin()
        #expect(Self.plan(weak.lead())?.range == .completing(value: "bytes=0-3", ifRange: nil), "a weak tag is no If-Range")
        var middle = T.transaction(partial: Self.part(3..<6))
        _ = middle.begin()
        #expect(Self.plan(middle.lead())?.range == CacheTransaction.UpstreamRange.none, "missing on both sides: the whole")
        var head = T.transaction(method: .HEAD, partial: Self.part(0..<5))
        #expect(Self.plan(head.begin())?.range == CacheTransaction.UpstreamRange.none)
    }

    @Test("the 206 that completes the part goes to the client whole and is stored whole")
    func completes() throws {
        var transaction = T.transaction(partial: Self.part(0..<5))
        _ = transaction.begin()
        _ = transaction.lead()
        let relay = try #require(
            Self.relay(transaction.upstreamAnswered(status: 206, headers: Self.answer206(5..<10), requestTime: Self.now, now: Self.now)))
        let partial = try #require(relay.partial)
        #expect(partial.whole)
        #expect(partial.result.isComplete)
        #expect(partial.joining?.combination.before == 0..<5)
        #expect(relay.storeAs?.key == CacheKey(url: T.url))
    }

    @Test("a 206 that cannot complete the part (no or another tag, too short) is dropped for the whole; so is a 416")
    func completionRefused() {
        let answers: [(String, Int, [HeaderField])] = [
            ("another tag", 206, Self.answer206(5..<10, etag: "\"v2\"")),
            ("no tag", 206, Self.answer206(5..<10, etag: nil)),
            ("too short", 206, Self.answer206(5..<8)),
            ("416", 416, []),
        ]
        for (name, status, headers) in answers {
            var transaction = T.transaction(partial: Self.part(0..<5))
            _ = transaction.begin()
            _ = transaction.lead()
            let again = Self.plan(transaction.upstreamAnswered(status: status, headers: headers, requestTime: Self.now, now: Self.now))
            #expect(again?.range == CacheTransaction.UpstreamRange.none, "\(name)")
        }
        var transaction = T.transaction(partial: Self.part(0..<5))
        _ = transaction.begin()
        _ = transaction.lead()
        #expect(
            T.Step(transaction.upstreamAnswered(status: 200, headers: [], requestTime: Self.now, now: Self.now))
                == .relay(forward: .uriMiss, stores: true, notStored: nil), "a 200 is the whole: relayed and stored")
    }

    @Test("a 206 to a forwarded range is relayed as it came and stored as a part, joined when it may be")
    func storesParts() throws {
        func relay(_ partial: CacheTransaction.Candidate?, _ headers: [HeaderField]) throws -> CacheTransaction.Relay {
            var transaction = T.transaction(headers: [("Range", "bytes=0-3")], partial: partial)
            _ = transaction.begin()
            return try #require(
                Self.relay(transaction.upstreamAnswered(status: 206, headers: headers, requestTime: Self.now, now: Self.now)))
        }
        let alone = try relay(nil, Self.answer206(0..<4))
        #expect(alone.storeAs?.key == CacheKey(url: T.url).partial)
        #expect(alone.partial?.joining == nil)
        #expect(alone.partial?.whole == false)

        let joined = try relay(Self.part(4..<10), Self.answer206(0..<4))
        #expect(joined.storeAs?.key == CacheKey(url: T.url), "joined into the whole: stored whole")
        #expect(joined.partial?.joining?.combination.after == 0..<6)
        #expect(joined.partial?.whole == false)

        let replaced = try relay(Self.part(4..<10), Self.answer206(0..<4, etag: "\"v2\""))
        #expect(replaced.storeAs?.key == CacheKey(url: T.url).partial, "another representation replaces the part")
        #expect(replaced.partial?.joining == nil)

        let gap = try relay(Self.part(6..<10), Self.answer206(0..<4))
        #expect(gap.partial?.joining == nil)
        #expect(gap.partial?.result.held == 0..<4)

        let noStore = try relay(nil, Self.answer206(0..<4, cacheControl: "no-store"))
        #expect(noStore.storeAs == nil)
        #expect(noStore.notStoredReason == "no-store")

        let unknownLength = try relay(nil, [HeaderField(name: "Content-Range", value: "bytes 0-3/*")])
        #expect(unknownLength.storeAs == nil)
        #expect(unknownLength.partial == nil)
        #expect(unknownLength.notStoredReason == "status-206")
    }
}

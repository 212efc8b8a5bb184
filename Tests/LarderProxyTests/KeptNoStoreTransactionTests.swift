import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1
import Testing

@testable import LarderProxy

/// A page kept against its `no-store` in the cache transaction (docs/SERVING.md, "Pages marked
/// no-store, kept on request"): stored for its owner on a chosen site only, never the answer
/// online (nor validated, nor a follower's), the answer while the origin cannot.
@Suite("Cache transaction: pages marked no-store, kept on request")
struct KeptNoStoreTransactionTests {
    static let admin = try! HTTPURL(parsing: "https://admin.example/admin/")
    static let adminCacheControl = "max-age=0, no-cache, no-store, must-revalidate, private"

    /// A kept copy of the admin page (its headers fresh for an hour: still never served online).
    static func kept() -> CacheTransaction.Candidate {
        var candidate = CacheTransactionTests.entry(
            [("Cache-Control", "max-age=3600, no-store, private"), ("ETag", "\"v1\"")], url: Self.admin)
        let owner = AnswerOwner(client: .local, request: [HeaderField](), url: Self.admin)
        candidate.entry = CachedEntry(
            key: candidate.entry.key.variant("0000000000000001"), url: candidate.entry.url, status: 200,
            headers: candidate.entry.headers, varyRequestHeaders: [owner.recorded], kind: .runtime, bodyHash: candidate.entry.bodyHash,
            bodySize: 10, bodyPath: "/nonexistent", requestTime: candidate.entry.requestTime, responseTime: candidate.entry.responseTime,
            storedAt: candidate.entry.storedAt)
        candidate.freshness.keptNoStore = KeptNoStore.isKept(
            headers: candidate.entry.headers, varyRequestHeaders: candidate.entry.varyRequestHeaders, precached: false, keyed: false)
        return candidate
    }

    static func transaction(
        _ candidate: CacheTransaction.Candidate?, headers: [(String, String)] = [("Cookie", "session=alice")], offline: Bool = false,
        chosen: Bool = true
    ) -> CacheTransaction {
        let fields = headers.map { HeaderField(name: $0.0, value: $0.1) }
        return CacheTransaction(
            CacheTransaction.Start(
                request: HTTPRequestHead(version: .http1_1, method: .GET, uri: Self.admin.absoluteString, headers: HTTPHeaders(headers)),
                owner: AnswerOwner(client: .remote(address: "10.0.0.2"), request: fields, url: Self.admin),
                url: Self.admin,
                key: CacheKey(url: Self.admin),
                lookup: CacheTransaction.Lookup(candidate: candidate, missReason: .uriMiss),
                routeMaxAge: nil,
                networkTimeout: .seconds(3),
                offline: offline,
                backingOff: false,
                now: CacheTransactionTests.now,
                keepsNoStore: chosen
            )
        )
    }

    @Test("online a kept copy is fetched over, unconditionally, with the copy to fall back on after the network timeout")
    func online() {
        var transaction = Self.transaction(Self.kept())
        #expect(CacheTransactionTests.Step(transaction.begin()) == .fetch(conditional: false, timeout: .seconds(3)))
        // A 5xx is the origin answering: relayed, not replaced by the kept copy.
        let answer = transaction.upstreamAnswered(
            status: 503, headers: [HeaderField(name: "Cache-Control", value: "no-store")], requestTime: CacheTransactionTests.now,
            now: CacheTransactionTests.now)
        #expect(CacheTransactionTests.Step(answer) == .relay(forward: .stale, stores: false, notStored: "status-503"))
    }

    @Test("while the origin cannot answer, or offline, the kept copy answers and says so")
    func disconnected() {
        var failing = Self.transaction(Self.kept())
        _ = failing.begin()
        #expect(
            CacheTransactionTests.Step(failing.upstreamFailed(isTimeout: false, description: "refused", now: CacheTransactionTests.now))
                == .stored(detail: "upstream-unreachable+kept-no-store", cacheStatus: nil, refresh: false, disconnected: true))
        var offline = Self.transaction(Self.kept(), offline: true)
        #expect(
            CacheTransactionTests.Step(offline.begin())
                == .stored(detail: "offline+kept-no-store", cacheStatus: nil, refresh: false, disconnected: true))
    }

    @Test("a follower of a fetch never gets a kept copy: it fetches")
    func follower() {
        var transaction = Self.transaction(nil)
        #expect(CacheTransactionTests.Step(transaction.begin()) == .join)
        #expect(
            CacheTransactionTests.Step(transaction.followerWoke(Self.kept(), joinedAfterAnswerBegan: false, now: CacheTransactionTests.now))
                == .fetch(conditional: false, timeout: nil))
    }

    @Test(
        "the admin page's answer is stored for its owner on a chosen site only; a request's no-store still stores nothing",
        arguments: [
            (true, [("Cookie", "session=alice")], true),
            (true, [], true),
            (false, [("Cookie", "session=alice")], false),
            (true, [("Cookie", "session=alice"), ("Cache-Control", "no-store")], false),
        ]
    )
    func stored(chosen: Bool, request: [(String, String)], stores: Bool) throws {
        var transaction = Self.transaction(nil, headers: request, chosen: chosen)
        _ = transaction.begin()
        _ = transaction.lead()
        let action = transaction.upstreamAnswered(
            status: 200, headers: [HeaderField(name: "Cache-Control", value: Self.adminCacheControl)],
            requestTime: CacheTransactionTests.now, now: CacheTransactionTests.now)
        guard case .relay(let relay) = action else {
            Issue.record("not a relay: \(action)")
            return
        }
        #expect((relay.storeAs != nil) == stores)
        if let target = relay.storeAs {
            #expect(AnswerOwner.recordedDigest(in: target.varyValues) == transaction.start.owner.digest, "for the person who saw it")
            #expect(target.key.isVariant)
            #expect(relay.cacheStatus(upstreamStatus: 200, storing: true, tooLarge: false).description.contains("detail=kept-no-store"))
        } else {
            #expect(relay.notStoredReason == (request.count == 2 ? "request-no-store" : "no-store"))
        }
    }
}

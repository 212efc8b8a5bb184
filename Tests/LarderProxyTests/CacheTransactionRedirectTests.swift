import Foundation
import LarderHTTP
import LarderStore
import NIOHTTP1
import Testing

@testable import LarderProxy

/// Redirects kept for disconnected use, and GraphQL queries keyed on defaults, through the
/// transaction (docs/SERVING.md, "Redirects" and "Requests with bodies").
@Suite("Cache transaction: redirects and GraphQL queries")
struct CacheTransactionRedirectTests {
    typealias T = CacheTransactionTests
    typealias Step = CacheTransactionTests.Step

    static let form = try! HTTPURL(parsing: "http://site.example/db/table?_filter=a")

    static func redirect(_ status: Int = 302, _ headers: [(String, String)] = [], age: TimeInterval = 60, kind: EntryKind = .runtime)
        -> CacheTransaction.Candidate
    {
        T.entry([("Location", "/db/table?a=1")] + headers, age: age, kind: kind, url: Self.form, status: status)
    }

    @Test("a 302 without freshness from upstream is stored; a 302 to a POST, or with no-store, is not")
    func stored() {
        for status in [301, 302, 303, 307, 308] {
            var transaction = T.transaction(url: Self.form)
            _ = transaction.begin()
            _ = transaction.lead()
            let step = Step(
                transaction.upstreamAnswered(
                    status: status, headers: [HeaderField(name: "Location", value: "/x")], requestTime: T.now, now: T.now))
            #expect(step == .relay(forward: .uriMiss, stores: true, notStored: nil), "\(status)")
        }
        var noStore = T.transaction(url: Self.form)
        _ = noStore.begin()
        _ = noStore.lead()
        #expect(
            Step(
                noStore.upstreamAnswered(
                    status: 302, headers: [HeaderField(name: "Cache-Control", value: "no-store")], requestTime: T.now, now: T.now))
                == .relay(forward: .uriMiss, stores: false, notStored: "no-store"))
    }

    @Test(
        "online a stored 302 is never the answer: the origin is asked, the copy at the network timeout",
        arguments: [CachingStrategy?.none, .cacheFirst, .staleWhileRevalidate]
    )
    func online(strategy: CachingStrategy?) {
        var transaction = T.transaction(Self.redirect(age: 0), strategy: strategy, url: Self.form)
        #expect(Step(transaction.begin()) == .fetch(conditional: true, timeout: .seconds(3)))
        #expect(
            Step(
                transaction.upstreamAnswered(
                    status: 302, headers: [HeaderField(name: "Location", value: "/y")], requestTime: T.now, now: T.now))
                == .relay(forward: .stale, stores: true, notStored: nil))
        // Nor for a request that accepts any staleness.
        var maxStale = T.transaction(Self.redirect(), headers: [("Cache-Control", "max-stale")], url: Self.form)
        #expect(Step(maxStale.begin()) == .fetch(conditional: true, timeout: .seconds(3)))
        // A precached one neither.
        var precached = T.transaction(Self.redirect(kind: .precached), url: Self.form)
        #expect(Step(precached.begin()) == .fetch(conditional: true, timeout: .seconds(3)))
    }

    @Test("when the origin cannot answer, the stored 302 answers under the relaxed rule, saying so; a strict route answers 504")
    func disconnected() {
        var unreachable = T.transaction(Self.redirect(), url: Self.form)
        _ = unreachable.begin()
        #expect(
            Step(unreachable.upstreamFailed(isTimeout: false, description: "refused", now: T.now))
                == .stored(detail: "upstream-unreachable+relaxed-status-302", cacheStatus: nil, refresh: false, disconnected: true))

        var hung = T.transaction(Self.redirect(307), url: Self.form)
        _ = hung.begin()
        #expect(
            Step(hung.upstreamTimedOut(now: T.now))
                == .stored(detail: "network-timeout+relaxed-status-307", cacheStatus: nil, refresh: false, disconnected: true))

        var offline = T.transaction(Self.redirect(303), url: Self.form, offline: true)
        #expect(
            Step(offline.begin()) == .stored(detail: "offline+relaxed-status-303", cacheStatus: nil, refresh: false, disconnected: true))

        var backingOff = T.transaction(Self.redirect(), url: Self.form, backingOff: true)
        #expect(Step(backingOff.begin()) == .mayProbe)
        #expect(
            Step(backingOff.probeAnswered(admitted: false, now: T.now))
                == .stored(detail: "upstream-backoff+relaxed-status-302", cacheStatus: nil, refresh: false, disconnected: true))

        var precached = T.transaction(Self.redirect(kind: .precached), url: Self.form, offline: true)
        #expect(Step(precached.begin()) == .stored(detail: "offline", cacheStatus: nil, refresh: false, disconnected: true))

        var strict = T.transaction(Self.redirect(), url: Self.form, offlineRule: .strict)
        #expect(Step(strict.begin()) == .fetch(conditional: true, timeout: nil))
        #expect(
            Step(strict.upstreamFailed(isTimeout: false, description: "refused", now: T.now))
                == .page(
                    .disconnected(status: 504, reason: "refused", unusable: T.strictUnusable("status-302")),
                    cacheStatus: "larder; fwd=stale; detail=upstream-unreachable"))

        // The origin answering 5xx is not "cannot answer": the 5xx is relayed.
        var fiveHundred = T.transaction(Self.redirect(), url: Self.form)
        _ = fiveHundred.begin()
        #expect(
            Step(fiveHundred.upstreamAnswered(status: 503, headers: [], requestTime: T.now, now: T.now))
                == .relay(forward: .stale, stores: false, notStored: "status-503"))
    }

    @Test("a GraphQL query keyed on defaults: network first, the copy when the origin cannot answer, detail +graphql-query")
    func graphQLQuery() {
        let noStore = T.entry([("Cache-Control", "no-store")])
        var unreachable = T.transaction(noStore, method: .POST, keyed: .graphQLQuery)
        #expect(Step(unreachable.begin()) == .fetch(conditional: false, timeout: .seconds(3)))
        #expect(
            Step(unreachable.upstreamFailed(isTimeout: false, description: "refused", now: T.now))
                == .stored(detail: "upstream-unreachable+graphql-query", cacheStatus: nil, refresh: false, disconnected: true))
        var offline = T.transaction(noStore, method: .POST, offline: true, keyed: .graphQLQuery)
        #expect(Step(offline.begin()) == .stored(detail: "offline+graphql-query", cacheStatus: nil, refresh: false, disconnected: true))
        var online = T.transaction(nil, method: .POST, keyed: .graphQLQuery)
        _ = online.begin()
        #expect(
            Step(online.upstreamAnswered(status: 200, headers: [], requestTime: T.now, now: T.now))
                == .relay(forward: .uriMiss, stores: true, notStored: nil))
    }
}

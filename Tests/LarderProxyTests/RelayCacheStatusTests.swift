import Foundation
import LarderHTTP
import Testing

@testable import LarderProxy

/// What a relayed answer's `Cache-Status` says, from the relay the transaction decided and what
/// storing its body came to.
@Suite("Relay Cache-Status")
struct RelayCacheStatusTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var relay: CacheTransaction.Relay
        var storing: Bool
        var tooLarge = false
        var expected: String
        var testDescription: String { self.name }
    }

    static let target: CacheTransaction.StoreTarget = {
        let url = try! HTTPURL(parsing: "http://relay.example/a")
        return CacheTransaction.StoreTarget(key: CacheKey(url: url), url: url, requestTime: Date(), varyValues: [])
    }()

    static let cases: [Case] = [
        Case(
            name: "stored while storing works", relay: .init(forwardReason: .uriMiss, storeAs: target, notStoredReason: nil), storing: true,
            expected: "larder; fwd=uri-miss; fwd-status=200; stored"),
        Case(
            name: "not claimed stored when the store is failing",
            relay: .init(forwardReason: .uriMiss, storeAs: target, notStoredReason: nil),
            storing: false, expected: "larder; fwd=uri-miss; fwd-status=200"),
        Case(
            name: "the reason it is not stored", relay: .init(forwardReason: .stale, storeAs: nil, notStoredReason: "no-store"),
            storing: false, expected: "larder; fwd=stale; fwd-status=200; detail=not-stored-no-store"),
        Case(
            name: "an unsafe method says no reason: the method is the reason",
            relay: .init(forwardReason: .method, storeAs: nil, notStoredReason: "method"), storing: false,
            expected: "larder; fwd=method; fwd-status=200"),
        Case(
            name: "over the entry limit", relay: .init(forwardReason: .uriMiss, storeAs: target, notStoredReason: nil), storing: true,
            tooLarge: true, expected: "larder; fwd=uri-miss; fwd-status=200; stored; detail=not-stored-too-large"),
        Case(
            name: "the transaction's own detail wins",
            relay: .init(forwardReason: .method, storeAs: nil, notStoredReason: nil, detail: "not-queued-cross-site"), storing: false,
            expected: "larder; fwd=method; fwd-status=200; detail=not-queued-cross-site"),
    ]

    @Test("the Cache-Status of a relayed 200", arguments: cases)
    func cacheStatus(_ example: Case) {
        let status = example.relay.cacheStatus(upstreamStatus: 200, storing: example.storing, tooLarge: example.tooLarge)
        #expect(status.description == example.expected)
    }
}

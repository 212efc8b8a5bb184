import LarderHTTP
import Testing

/// Larder's own fields on every answer, written by one rule in one order.
@Suite("Proxy answer fields")
struct ProxyAnswerFieldsTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var received: [HeaderField]
        var via: Bool
        var age: Int?
        var cacheStatus: CacheStatus?
        var disconnected = false
        var close = false
        var expected: [HeaderField]
        var testDescription: String { self.name }
    }

    static let cases: [Case] = [
        Case(
            name: "a relay: Via after the origin's, then Cache-Status", received: [HeaderField(name: "Via", value: "1.1 cdn")], via: true,
            cacheStatus: .forward(.uriMiss, status: 200, stored: true),
            expected: [
                HeaderField(name: "Via", value: "1.1 cdn, 1.1 larder"),
                HeaderField(name: "Cache-Status", value: "larder; fwd=uri-miss; fwd-status=200; stored"),
            ]),
        Case(
            name: "several Via fields become one, at the end",
            received: [
                HeaderField(name: "via", value: "1.0 a"), HeaderField(name: "Content-Type", value: "text/plain"),
                HeaderField(name: "Via", value: "1.1 b"),
            ], via: true, cacheStatus: nil,
            expected: [HeaderField(name: "Content-Type", value: "text/plain"), HeaderField(name: "Via", value: "1.0 a, 1.1 b, 1.1 larder")]),
        Case(
            name: "a stand-in answer closing the connection", received: [], via: false, age: 7, cacheStatus: .hit(ttl: -3),
            disconnected: true, close: true,
            expected: [
                HeaderField(name: "age", value: "7"), HeaderField(name: "Cache-Status", value: "larder; hit; ttl=-3"),
                HeaderField(name: "Larder-Offline", value: "1"), HeaderField(name: "Connection", value: "close"),
            ]),
        Case(
            name: "Larder's own answer carries no Via", received: [HeaderField(name: "Cache-Control", value: "no-store")], via: false,
            cacheStatus: .forward(.method, detail: "queued"),
            expected: [
                HeaderField(name: "Cache-Control", value: "no-store"),
                HeaderField(name: "Cache-Status", value: "larder; fwd=method; detail=queued"),
            ]),
    ]

    @Test("fields added in one order", arguments: cases)
    func added(_ example: Case) {
        var headers = example.received
        ProxyAnswerFields.add(
            to: &headers, via: example.via, age: example.age, cacheStatus: example.cacheStatus, disconnected: example.disconnected,
            close: example.close)
        #expect(headers == example.expected)
    }
}

import LarderHTTP
import NIOHTTP1
import Testing

@testable import LarderProxy

/// Whether a write a queue rule covers is queued, and what it is sent and stored with.
@Suite("Write queue decisions")
struct WriteQueueDecisionTests {
    @Test(
        "queued at once offline, while the origin backs off, and behind older writes to it",
        arguments: [
            (false, false, false, false), (true, false, false, true), (false, true, false, true), (false, false, true, true),
        ])
    func atOnce(offline: Bool, backingOff: Bool, pending: Bool, queued: Bool) {
        #expect(WriteQueueDecision.queuesAtOnce(offline: offline, backingOff: backingOff, originHasPending: pending) == queued)
    }

    @Test("queued when unanswered; a 5xx only when the rule says so; other answers relayed")
    func afterAttempt() {
        #expect(WriteQueueDecision.queues(after: .unanswered, queueOn5xx: false))
        #expect(!WriteQueueDecision.queues(after: .answered(status: 503), queueOn5xx: false))
        #expect(WriteQueueDecision.queues(after: .answered(status: 503), queueOn5xx: true))
        #expect(WriteQueueDecision.queues(after: .answered(status: 500), queueOn5xx: true))
        for status in [200, 201, 204, 302, 400, 404, 409, 429] {
            #expect(!WriteQueueDecision.queues(after: .answered(status: status), queueOn5xx: true))
        }
    }

    @Test("stored headers: no hop-by-hop or Proxy-* fields, an Idempotency-Key added once")
    func headers() {
        let request: HTTPHeaders = [
            "Host": "api.example", "Content-Type": "application/json", "Connection": "keep-alive, X-Hop", "X-Hop": "1",
            "Proxy-Authorization": "Basic c2VjcmV0", "Proxy-Secret": "s", "Authorization": "Bearer t", "Content-Length": "2",
        ]
        let prepared = QueuedWriteHeaders(request, newKey: { "key-1" })
        let names = prepared.fields.map { $0.name.lowercased() }
        #expect(names == ["content-type", "authorization", "via", "idempotency-key"])
        #expect(prepared.fields.last == HeaderField(name: "Idempotency-Key", value: "key-1"))

        let own = QueuedWriteHeaders(["idempotency-key": "mine"], newKey: { "unused" })
        #expect(own.fields.filter { $0.hasName("Idempotency-Key") }.map(\.value) == ["mine"])
    }

    @Test("a fresh key per write")
    func distinctKeys() {
        let first = QueuedWriteHeaders(HTTPHeaders()).fields.first { $0.hasName("idempotency-key") }?.value
        let second = QueuedWriteHeaders(HTTPHeaders()).fields.first { $0.hasName("idempotency-key") }?.value
        #expect(first != nil && first != second)
    }
}

import LarderHTTP
import Testing

/// What a replay's outcome means, and how long a failing origin waits (docs/SERVING.md, "Queued writes").
@Suite("Replay verdicts and back-off")
struct ReplayVerdictTests {
    @Test(
        "statuses: 2xx and 3xx delivered, 4xx dead-lettered but 408, 425 and 429, 5xx retried",
        arguments: [
            (200, "delivered"), (201, "delivered"), (204, "delivered"), (301, "delivered"), (304, "delivered"),
            (400, "dead-letter"), (401, "dead-letter"), (404, "dead-letter"), (409, "dead-letter"), (422, "dead-letter"),
            (408, "retry"), (425, "retry"), (429, "retry"), (500, "retry"), (502, "retry"), (503, "retry"), (504, "retry"),
        ])
    func statuses(status: Int, expected: String) {
        let verdict = ReplayVerdict.classify(status: status)
        switch verdict {
        case .delivered: #expect(expected == "delivered")
        case .deadLetter(let reason):
            #expect(expected == "dead-letter")
            #expect(reason.contains(String(status)))
        case .retry(let reason):
            #expect(expected == "retry")
            #expect(reason.contains(String(status)))
        }
    }

    @Test("a network error is retried, saying what happened")
    func networkError() {
        #expect(ReplayVerdict.networkError("connection refused") == .retry("connection refused"))
    }

    @Test("the seed's back-off: 1.5 s, then 1 s more per consecutive failure, capped at 60 s")
    func seedBackoff() {
        let backoff = ReplayBackoff.standard
        #expect(backoff.delay(afterFailures: 0) == .zero)
        #expect(backoff.delay(afterFailures: 1) == .milliseconds(1500))
        #expect(backoff.delay(afterFailures: 2) == .milliseconds(2500))
        #expect(backoff.delay(afterFailures: 3) == .milliseconds(3500))
        #expect(backoff.delay(afterFailures: 59) == .milliseconds(59_500))
        #expect(backoff.delay(afterFailures: 60) == .seconds(60))
        #expect(backoff.delay(afterFailures: 61) == .seconds(60))
        #expect(backoff.delay(afterFailures: Int.max) == .seconds(60))
    }

    @Test("a configured back-off: no step keeps the base; a cap below the base wins")
    func configuredBackoff() {
        #expect(ReplayBackoff(base: .seconds(2), step: .zero, maximum: .seconds(10)).delay(afterFailures: 100) == .seconds(2))
        #expect(ReplayBackoff(base: .seconds(5), step: .seconds(1), maximum: .seconds(3)).delay(afterFailures: 1) == .seconds(3))
        #expect(
            ReplayBackoff(base: .milliseconds(100), step: .milliseconds(100), maximum: .seconds(1)).delay(afterFailures: 4)
                == .milliseconds(400))
    }
}

import Testing

@testable import LarderHTTP

/// Whether an answer to a forwarded GET or HEAD is stored: the request's side first, then the
/// response's (RFC 9111 section 3).
@Suite("Storability of forwarded answers")
struct ForwardedStorabilityTests {
    @Test(
        "HEAD, network-only and preconditions are never stored; the rest by the response",
        arguments: [
            (true, CachingStrategy.http, [("Cache-Control", "max-age=60")], [HeaderField](), Storability.notStorable(reason: "head")),
            (false, .networkOnly, [], [], .notStorable(reason: "network-only")),
            (false, .http, [], [HeaderField(name: "If-Match", value: "\"a\"")], .notStorable(reason: "precondition")),
            (
                false, .http, [], [HeaderField(name: "if-unmodified-since", value: "Sat, 01 Jan 2000 00:00:00 GMT")],
                .notStorable(reason: "precondition")
            ),
            (false, .http, [], [HeaderField(name: "Cache-Control", value: "no-store")], .notStorable(reason: "request-no-store")),
            (false, .http, [("Cache-Control", "no-store")], [], .notStorable(reason: "no-store")),
            (false, .http, [("Vary", "*")], [], .notStorable(reason: "vary-star")),
            (false, .http, [("Content-Type", "text/event-stream")], [], .notStorable(reason: "event-stream")),
            (false, .cacheFirst, [], [HeaderField(name: "If-None-Match", value: "\"a\"")], .storable),
        ]
    )
    func forwarded(isHead: Bool, strategy: CachingStrategy, response: [(String, String)], request: [HeaderField], expected: Storability) {
        let fields = response.map { HeaderField(name: $0.0, value: $0.1) }
        #expect(Storability.forwarded(isHead: isHead, strategy: strategy, request: request, status: 200, response: fields) == expected)
    }
}

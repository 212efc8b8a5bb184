import Foundation
import LarderHTTP
import LarderTestSupport
import Testing

/// One client request of a conformance case, and what must come of it.
struct ConformanceStep: Sendable {
    /// Extra `curl` arguments (headers, `--head`, `-X POST`).
    var arguments: [String] = []
    /// Whether this request reaches the origin (counted at the origin); nil when a background
    /// request may race it.
    var reachesOrigin: Bool?
    /// The status the client gets.
    var status = 200
    /// Substrings the `Cache-Status` must contain.
    var cacheStatus: [String] = []
    /// A request header the origin must have seen on this request, with its value.
    var originSaw: (name: String, value: String)?
    /// The body the client gets, when it matters.
    var body: String?
    /// Wait until the origin has seen this many requests in all (a background refresh).
    var originEventually: Int?

    static func get(_ arguments: [String] = [], origin: Bool, status: Int = 200, cacheStatus: [String] = []) -> ConformanceStep {
        ConformanceStep(arguments: arguments, reachesOrigin: origin, status: status, cacheStatus: cacheStatus)
    }
}

/// A rule of RFC 9111 / RFC 5861 / RFC 8246, as requests against an origin whose answers `respond`
/// computes, in the style of nginx-tests `proxy_cache_*.t` and Varnish `c000xx` cases.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    var name: String
    var respond: @Sendable (RecordedRequest) -> TestResponse
    var steps: [ConformanceStep]

    var testDescription: String { self.name }
}

private let body = "conformance body"

/// A 200 with these headers (and `Date: now`).
private func answer(_ headers: [(String, String)], status: Int = 200, body text: String = body)
    -> @Sendable (RecordedRequest) -> TestResponse
{
    { _ in .text(text, status: status, headers: [("Date", HTTPDateText.now())] + headers) }
}

/// A 200 with `etag` and these headers, or a 304 (with `notModified` headers) when the request's
/// `If-None-Match` names the tag.
private func validated(etag: String, _ headers: [(String, String)], notModified: [(String, String)] = [])
    -> @Sendable (RecordedRequest) -> TestResponse
{
    { request in
        if request.header("if-none-match") == etag {
            return TestResponse(
                status: 304, headers: [("Date", HTTPDateText.now()), ("ETag", etag)] + notModified.map { (name: $0.0, value: $0.1) })
        }
        return .text(body, headers: [("Date", HTTPDateText.now()), ("ETag", etag)] + headers)
    }
}

enum HTTPDateText {
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    static func now(offset: TimeInterval = 0) -> String {
        self.format(Date().addingTimeInterval(offset))
    }
}

@Suite("Conformance: RFC 9111 private cache (with RFC 5861, RFC 8246, RFC 9211) through the real binary")
struct ConformanceTests {
    static let cases: [ConformanceCase] = [
        // Freshness, from each source (RFC 9111 section 4.2.1).
        ConformanceCase(
            name: "max-age: fresh answers come from the cache", respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true, cacheStatus: ["fwd=uri-miss", "stored"]), .get(origin: false, cacheStatus: ["hit", "ttl="]),
            ]),
        ConformanceCase(
            name: "Expires in the future: fresh",
            respond: { _ in
                .text(body, headers: [("Date", HTTPDateText.now()), ("Expires", HTTPDateText.now(offset: 3600))])
            }, steps: [.get(origin: true), .get(origin: false, cacheStatus: ["hit"])]),
        ConformanceCase(
            name: "Expires in the past: stale, goes forward",
            respond: { _ in
                .text(body, headers: [("Date", HTTPDateText.now()), ("Expires", HTTPDateText.now(offset: -3600))])
            }, steps: [.get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"])]),
        ConformanceCase(
            name: "invalid Expires (0) means already expired", respond: answer([("Expires", "0")]),
            steps: [
                .get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"]),
            ]),
        ConformanceCase(
            name: "max-age wins over Expires",
            respond: { _ in
                .text(
                    body,
                    headers: [("Date", HTTPDateText.now()), ("Expires", HTTPDateText.now(offset: 3600)), ("Cache-Control", "max-age=0")])
            }, steps: [.get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"])]),
        ConformanceCase(
            name: "heuristic freshness: 10% of the time since Last-Modified",
            respond: { _ in
                .text(body, headers: [("Date", HTTPDateText.now()), ("Last-Modified", HTTPDateText.now(offset: -10 * 86400))])
            }, steps: [.get(origin: true), .get(origin: false, cacheStatus: ["hit"])]),
        ConformanceCase(
            name: "no heuristic freshness without Last-Modified", respond: answer([]),
            steps: [
                .get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"]),
            ]),
        ConformanceCase(
            name: "Age counts against max-age", respond: answer([("Cache-Control", "max-age=60"), ("Age", "120")]),
            steps: [
                .get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"]),
            ]),
        ConformanceCase(
            name: "an invalid Age (not digits) is ignored", respond: answer([("Cache-Control", "max-age=3600"), ("Age", "7200.5")]),
            steps: [
                .get(origin: true), .get(origin: false, cacheStatus: ["hit"]),
            ]),
        ConformanceCase(
            name: "s-maxage is ignored by a private cache", respond: answer([("Cache-Control", "s-maxage=3600, max-age=0")]),
            steps: [
                .get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"]),
            ]),
        ConformanceCase(
            name: "directive names are case-insensitive and quoted values unquoted",
            respond: answer([("Cache-Control", "MAX-AGE=\"3600\"")]),
            steps: [
                .get(origin: true), .get(origin: false, cacheStatus: ["hit"]),
            ]),
        ConformanceCase(
            name: "an invalid max-age makes the response stale", respond: answer([("Cache-Control", "max-age=soon")]),
            steps: [
                .get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"]),
            ]),
        ConformanceCase(
            name: "duplicate max-age: the first one counts",
            respond: answer([("Cache-Control", "max-age=3600"), ("Cache-Control", "max-age=0")]),
            steps: [
                .get(origin: true), .get(origin: false, cacheStatus: ["hit"]),
            ]),

        // Storable statuses (RFC 9111 section 3).
        ConformanceCase(
            name: "a 302 with explicit freshness is stored",
            respond: { _ in
                TestResponse(status: 302, headers: [("Location", "/elsewhere"), ("Cache-Control", "max-age=3600")])
            },
            steps: [
                .get(origin: true, status: 302, cacheStatus: ["stored"]), .get(origin: false, status: 302, cacheStatus: ["hit"]),
            ]),
        ConformanceCase(
            name: "a 302 without explicit freshness is stored for disconnected use only: online the origin is asked each time",
            respond: { _ in
                TestResponse(status: 302, headers: [("Location", "/elsewhere")])
            },
            steps: [
                .get(origin: true, status: 302, cacheStatus: ["stored"]), .get(origin: true, status: 302, cacheStatus: ["fwd=stale"]),
            ]),
        ConformanceCase(
            name: "a 500 is never stored, even with max-age", respond: answer([("Cache-Control", "max-age=3600")], status: 500),
            steps: [
                .get(origin: true, status: 500), .get(origin: true, status: 500),
            ]),
        ConformanceCase(
            name: "a heuristically cacheable 404 is stored", respond: answer([("Cache-Control", "max-age=3600")], status: 404),
            steps: [
                .get(origin: true, status: 404, cacheStatus: ["stored"]), .get(origin: false, status: 404, cacheStatus: ["hit"]),
            ]),

        ConformanceCase(
            name: "an answer to a client's precondition is not stored for everyone",
            respond: { request in
                request.header("if-match") != nil
                    ? TestResponse(status: 412, headers: [("Cache-Control", "max-age=3600")])
                    : .text(body, headers: [("Cache-Control", "max-age=3600")])
            },
            steps: [
                .get(["-H", "If-Match: \"nope\""], origin: true, status: 412, cacheStatus: ["not-stored-precondition"]),
                ConformanceStep(reachesOrigin: true, cacheStatus: ["fwd=uri-miss", "stored"], body: body),
            ]),

        // Response directives (RFC 9111 section 5.2.2).
        ConformanceCase(
            name: "no-store responses are not stored", respond: answer([("Cache-Control", "no-store, max-age=3600")]),
            steps: [
                .get(origin: true, cacheStatus: ["detail=not-stored-no-store"]), .get(origin: true, cacheStatus: ["fwd=uri-miss"]),
            ]),
        ConformanceCase(
            name: "no-cache responses are revalidated every time",
            respond: validated(etag: "\"nc1\"", [("Cache-Control", "no-cache, max-age=3600")]),
            steps: [
                .get(origin: true),
                ConformanceStep(
                    reachesOrigin: true, cacheStatus: ["fwd=stale", "fwd-status=304"], originSaw: ("if-none-match", "\"nc1\""), body: body),
            ]),
        ConformanceCase(
            name: "private responses are stored by a private cache", respond: answer([("Cache-Control", "private, max-age=3600")]),
            steps: [
                .get(origin: true, cacheStatus: ["stored"]), .get(origin: false, cacheStatus: ["hit"]),
            ]),
        ConformanceCase(
            name: "Vary: * is never stored", respond: answer([("Cache-Control", "max-age=3600"), ("Vary", "*")]),
            steps: [
                .get(origin: true), .get(origin: true, cacheStatus: ["fwd=uri-miss"]),
            ]),
        ConformanceCase(
            name: "immutable: a reload (max-age=0) is answered from the cache, a forced reload is not",
            respond: answer([("Cache-Control", "max-age=3600, immutable")]),
            steps: [
                .get(origin: true),
                .get(["-H", "Cache-Control: max-age=0"], origin: false, cacheStatus: ["hit"]),
                .get(["-H", "Cache-Control: no-cache"], origin: true, cacheStatus: ["fwd=request"]),
            ]),
        ConformanceCase(
            name: "stale-while-revalidate: a stale answer at once, refreshed in the background",
            respond: answer([("Cache-Control", "max-age=1, stale-while-revalidate=600"), ("Age", "5")]),
            steps: [
                .get(origin: true),
                ConformanceStep(
                    reachesOrigin: nil, cacheStatus: ["hit", "detail=stale-while-revalidate"], body: body, originEventually: 2),
            ]),

        // Request directives (RFC 9111 section 5.2.1).
        ConformanceCase(
            name: "request no-cache goes forward even when fresh", respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true), .get(["-H", "Cache-Control: no-cache"], origin: true, cacheStatus: ["fwd=request"]),
            ]),
        ConformanceCase(
            name: "Pragma: no-cache without Cache-Control goes forward", respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true), .get(["-H", "Pragma: no-cache"], origin: true, cacheStatus: ["fwd=request"]),
            ]),
        ConformanceCase(
            name: "request max-age=0 goes forward", respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true), .get(["-H", "Cache-Control: max-age=0"], origin: true),
            ]),
        ConformanceCase(
            name: "request max-age larger than the age is answered from the cache",
            respond: answer([("Cache-Control", "max-age=3600"), ("Age", "100")]),
            steps: [
                .get(origin: true), .get(["-H", "Cache-Control: max-age=600"], origin: false, cacheStatus: ["hit"]),
                .get(["-H", "Cache-Control: max-age=50"], origin: true),
            ]),
        ConformanceCase(
            name: "request min-fresh beyond the remaining lifetime goes forward", respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true), .get(["-H", "Cache-Control: min-fresh=60"], origin: false),
                .get(["-H", "Cache-Control: min-fresh=7200"], origin: true),
            ]),
        ConformanceCase(
            name: "request no-store: the answer is not stored", respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(["-H", "Cache-Control: no-store"], origin: true, cacheStatus: ["not-stored"]),
                .get(origin: true, cacheStatus: ["fwd=uri-miss"]),
            ]),
        ConformanceCase(
            name: "only-if-cached: a miss is 504 without the network, a fresh entry a hit",
            respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(["-H", "Cache-Control: only-if-cached"], origin: false, status: 504, cacheStatus: ["detail=only-if-cached"]),
                .get(origin: true), .get(["-H", "Cache-Control: only-if-cached"], origin: false, cacheStatus: ["hit"]),
            ]),
        ConformanceCase(
            name: "only-if-cached with a stale entry is 504", respond: answer([("Cache-Control", "max-age=0")]),
            steps: [
                .get(origin: true), .get(["-H", "Cache-Control: only-if-cached"], origin: false, status: 504),
            ]),
        ConformanceCase(
            name: "max-stale accepts a stale entry within its limit", respond: answer([("Cache-Control", "max-age=10"), ("Age", "70")]),
            steps: [
                .get(origin: true),
                .get(["-H", "Cache-Control: max-stale"], origin: false, cacheStatus: ["hit", "detail=max-stale"]),
                .get(["-H", "Cache-Control: max-stale=600"], origin: false, cacheStatus: ["hit"]),
                .get(["-H", "Cache-Control: max-stale=5"], origin: true),
            ]),
        ConformanceCase(
            name: "max-stale does not override must-revalidate",
            respond: answer([("Cache-Control", "max-age=10, must-revalidate"), ("Age", "70")]),
            steps: [
                .get(origin: true), .get(["-H", "Cache-Control: max-stale"], origin: true),
            ]),

        // Validation (RFC 9111 section 4.3).
        ConformanceCase(
            name: "a stale entry with an ETag is revalidated; the 304 refreshes it and the client gets the full 200",
            respond: validated(etag: "\"v1\"", [("Cache-Control", "max-age=0")], notModified: [("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true),
                ConformanceStep(
                    reachesOrigin: true, cacheStatus: ["fwd=stale", "fwd-status=304"], originSaw: ("if-none-match", "\"v1\""), body: body),
                ConformanceStep(reachesOrigin: false, cacheStatus: ["hit"], body: body),
            ]),
        ConformanceCase(
            name: "a stale entry with Last-Modified is revalidated with If-Modified-Since",
            respond: { request in
                let modified = "Sat, 01 Jan 2000 00:00:00 GMT"
                if request.header("if-modified-since") == modified {
                    return TestResponse(status: 304, headers: [("Date", HTTPDateText.now())])
                }
                return .text(body, headers: [("Date", HTTPDateText.now()), ("Last-Modified", modified), ("Cache-Control", "max-age=0")])
            },
            steps: [
                .get(origin: true),
                ConformanceStep(
                    reachesOrigin: true, cacheStatus: ["fwd-status=304"], originSaw: ("if-modified-since", "Sat, 01 Jan 2000 00:00:00 GMT"),
                    body: body),
            ]),
        ConformanceCase(
            name: "a changed resource replaces the stored one",
            respond: { request in
                request.header("if-none-match") == nil
                    ? .text("first", headers: [("ETag", "\"a\""), ("Cache-Control", "max-age=0")])
                    : .text("second", headers: [("ETag", "\"b\""), ("Cache-Control", "max-age=3600")])
            },
            steps: [
                ConformanceStep(reachesOrigin: true, body: "first"),
                ConformanceStep(reachesOrigin: true, cacheStatus: ["fwd=stale", "fwd-status=200", "stored"], body: "second"),
                ConformanceStep(reachesOrigin: false, cacheStatus: ["hit"], body: "second"),
            ]),
        ConformanceCase(
            name: "a client's own If-None-Match is answered 304 from a fresh entry",
            respond: validated(etag: "\"c1\"", [("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true),
                .get(["-H", "If-None-Match: \"c1\""], origin: false, status: 304, cacheStatus: ["hit"]),
                .get(["-H", "If-None-Match: W/\"c1\", \"other\""], origin: false, status: 304),
                .get(["-H", "If-None-Match: \"other\""], origin: false, status: 200),
            ]),
        ConformanceCase(
            name: "a client's own If-Modified-Since is answered 304 from a fresh entry",
            respond: answer([("Cache-Control", "max-age=3600"), ("Last-Modified", "Sat, 01 Jan 2000 00:00:00 GMT")]),
            steps: [
                .get(origin: true),
                .get(["-H", "If-Modified-Since: Sun, 02 Jan 2000 00:00:00 GMT"], origin: false, status: 304),
                .get(["-H", "If-Modified-Since: Fri, 31 Dec 1999 00:00:00 GMT"], origin: false, status: 200),
            ]),

        // HEAD and Age (RFC 9111 sections 4 and 4.2.3).
        ConformanceCase(
            name: "HEAD is answered from the GET entry", respond: answer([("Cache-Control", "max-age=3600")]),
            steps: [
                .get(origin: true), .get(["--head"], origin: false, cacheStatus: ["hit"]),
            ]),
        ConformanceCase(
            name: "Age on a hit includes the Age the origin sent", respond: answer([("Cache-Control", "max-age=3600"), ("Age", "100")]),
            steps: [
                .get(origin: true), ConformanceStep(arguments: ["-H", "X-Check-Age: 100"], reachesOrigin: false, cacheStatus: ["hit"]),
            ]),

        ConformanceCase(
            name: "Age: of a list the first member counts (7200, 0 is stale)",
            respond: answer([("Cache-Control", "max-age=3600"), ("Age", "7200, 0")]),
            steps: [.get(origin: true), .get(origin: true, cacheStatus: ["fwd=stale"])]),

        // HEAD updates the stored GET response (RFC 9111 section 4.3.5).
        ConformanceCase(
            name: "a 200 to a HEAD refreshes the stored response's headers and freshness",
            respond: { request in
                // The HEAD's answer has the GET's length (the test origin sends it without the body).
                .text(body, headers: [("Cache-Control", request.method == "HEAD" ? "max-age=3600" : "max-age=0")])
            },
            steps: [
                .get(origin: true),
                ConformanceStep(arguments: ["--head"], reachesOrigin: true, cacheStatus: ["fwd-status=200", "detail=revalidated"]),
                .get(origin: false, cacheStatus: ["hit"]),
            ]),

        // Invalidation by unsafe methods (RFC 9111 section 4.4).
        ConformanceCase(
            name: "a successful POST invalidates the stored entry",
            respond: { request in
                request.method == "POST" ? .text("posted", status: 201) : .text(body, headers: [("Cache-Control", "max-age=3600")])
            },
            steps: [
                .get(origin: true), .get(origin: false),
                ConformanceStep(arguments: ["-X", "POST", "--data", "x=1"], reachesOrigin: true, status: 201),
                .get(origin: true, cacheStatus: ["fwd=uri-miss"]),
            ]),
        ConformanceCase(
            name: "a successful M-SEARCH (an extension method) reaches the origin as M-SEARCH and invalidates",
            respond: { request in
                // The test origin reads the method with NIO, which names it MSEARCH.
                request.method == "GET" ? .text(body, headers: [("Cache-Control", "max-age=3600")]) : .text("found", status: 200)
            },
            steps: [
                .get(origin: true), .get(origin: false),
                ConformanceStep(arguments: ["-X", "M-SEARCH"], reachesOrigin: true, status: 200),
                .get(origin: true, cacheStatus: ["fwd=uri-miss"]),
            ]),
        ConformanceCase(
            name: "a successful DELETE invalidates; a failed one does not",
            respond: { request in
                switch (request.method, request.header("x-fail")) {
                case ("DELETE", "1"?): return .text("no", status: 500)
                case ("DELETE", _): return .text("", status: 204)
                default: return .text(body, headers: [("Cache-Control", "max-age=3600")])
                }
            },
            steps: [
                .get(origin: true),
                ConformanceStep(arguments: ["-X", "DELETE", "-H", "X-Fail: 1"], reachesOrigin: true, status: 500),
                .get(origin: false, cacheStatus: ["hit"]),
                ConformanceStep(arguments: ["-X", "DELETE"], reachesOrigin: true, status: 204),
                .get(origin: true),
            ]),

        // Vary (RFC 9111 section 4.1).
        ConformanceCase(
            name: "Vary: variants are matched by the request headers they name",
            respond: { request in
                .text(
                    "lang=\(request.header("accept-language") ?? "none")",
                    headers: [("Cache-Control", "max-age=3600"), ("Vary", "Accept-Language")])
            },
            steps: [
                ConformanceStep(arguments: ["-H", "Accept-Language: en"], reachesOrigin: true, body: "lang=en"),
                ConformanceStep(arguments: ["-H", "Accept-Language: en"], reachesOrigin: false, cacheStatus: ["hit"], body: "lang=en"),
                ConformanceStep(
                    arguments: ["-H", "Accept-Language: fr"], reachesOrigin: true, cacheStatus: ["fwd=vary-miss"], body: "lang=fr"),
                ConformanceStep(arguments: ["-H", "Accept-Language: fr"], reachesOrigin: false, cacheStatus: ["hit"], body: "lang=fr"),
                ConformanceStep(arguments: ["-H", "Accept-Language: en"], reachesOrigin: false, cacheStatus: ["hit"], body: "lang=en"),
                ConformanceStep(reachesOrigin: true, cacheStatus: ["fwd=vary-miss"], body: "lang=none"),
            ]),
    ]

    @Test(arguments: Self.cases)
    func conformance(_ testCase: ConformanceCase) async throws {
        try await withProxy { larder, origin in
            let respond = testCase.respond
            origin.setRoute("/r", .dynamic { respond($0) })
            for (index, step) in testCase.steps.enumerated() {
                let before = origin.requestCount("/r")
                let response = try await Curl.run(origin.url("/r"), proxy: larder.proxyURL, arguments: step.arguments)
                let label = "step \(index + 1) (\(step.arguments.joined(separator: " ")))"
                let reached = origin.requestCount("/r") > before
                #expect(
                    step.reachesOrigin == nil || reached == step.reachesOrigin,
                    "\(label): reached origin \(reached); cache-status \(response.header("cache-status") ?? "none")")
                #expect(response.status == step.status, "\(label)")
                let cacheStatus = response.header("cache-status") ?? ""
                for part in step.cacheStatus {
                    #expect(cacheStatus.contains(part), "\(label): Cache-Status \(cacheStatus) lacks \(part)")
                }
                if let (name, value) = step.originSaw {
                    #expect(origin.requests("/r").last?.header(name) == value, "\(label): origin did not see \(name): \(value)")
                }
                if let expected = step.body {
                    #expect(response.text == expected, "\(label)")
                }
                if step.arguments.contains("X-Check-Age: 100") {
                    #expect((response.header("age").flatMap { Int($0) } ?? 0) >= 100, "\(label): Age \(response.header("age") ?? "none")")
                }
                if let total = step.originEventually {
                    let deadline = ContinuousClock.now + .seconds(5)
                    while origin.requestCount("/r") < total, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    #expect(origin.requestCount("/r") == total, "\(label): background refresh")
                }
                // What a step stores is committed just after its client has the answer.
                if reached {
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
        }
    }
}

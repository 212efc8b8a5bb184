import Foundation
import Testing

@testable import LarderHTTP

@Suite("CacheDecision: what answers a GET, before any I/O")
struct CacheDecisionTests {
    private static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A stored response with these `Cache-Control` values and this `Age`, generated and received
    /// `storedAgo` seconds before t0.
    private static func stored(_ cacheControl: String, age: Int = 0, storedAgo: TimeInterval = 0) -> ResponseFreshness {
        let received = t0.addingTimeInterval(-storedAgo)
        let headers: [String: [String]] = ["cache-control": [cacheControl], "date": [HTTPDate.format(received)], "age": [String(age)]]
        return ResponseFreshness(status: 200, header: { headers[$0] ?? [] }, requestTime: received, responseTime: received)
    }

    private static func context(_ strategy: CachingStrategy = .http, request: String? = nil, pragma: String? = nil, maxAge: Duration? = nil)
        -> CacheDecision.Context
    {
        CacheDecision.Context(
            strategy: strategy,
            routeMaxAge: maxAge,
            networkTimeout: .seconds(3),
            request: RequestCacheDirectives(cacheControl: request.map { [$0] } ?? [], pragma: pragma.map { [$0] } ?? [])
        )
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var strategy: CachingStrategy = .http
        var response: String?
        var age = 0
        var request: String?
        var pragma: String?
        var routeMaxAge: Duration?
        var storedAgo: TimeInterval = 0
        var expected: CacheDecision
        var testDescription: String {
            "\(self.strategy.rawValue) response=\(self.response ?? "miss") age=\(self.age) request=\(self.request ?? "-") pragma=\(self.pragma ?? "-")"
        }
    }

    static let rows: [Row] = [
        Row(response: nil, expected: .forward(reason: .uriMiss, timeout: nil)),
        Row(response: nil, request: "only-if-cached", expected: .gatewayTimeout(detail: "only-if-cached")),
        Row(strategy: .cacheOnly, response: nil, expected: .gatewayTimeout(detail: "cache-only")),
        Row(response: "max-age=60", expected: .answerFromCache(detail: nil)),
        Row(response: "max-age=60", age: 61, expected: .forward(reason: .stale, timeout: nil)),
        Row(response: "max-age=60", request: "no-cache", expected: .forward(reason: .request, timeout: nil)),
        Row(response: "max-age=60", pragma: "no-cache", expected: .forward(reason: .request, timeout: nil)),
        Row(response: "max-age=60", request: "max-age=600", pragma: "no-cache", expected: .answerFromCache(detail: nil)),
        Row(response: "max-age=60", age: 30, request: "max-age=10", expected: .forward(reason: .request, timeout: nil)),
        Row(response: "max-age=60", age: 30, request: "max-age=nope", expected: .forward(reason: .request, timeout: nil)),
        Row(response: "max-age=60", age: 30, request: "min-fresh=20", expected: .answerFromCache(detail: nil)),
        Row(response: "max-age=60", age: 30, request: "min-fresh=40", expected: .forward(reason: .request, timeout: nil)),
        Row(response: "max-age=60", age: 100, request: "max-stale", expected: .answerFromCache(detail: "max-stale")),
        Row(response: "max-age=60", age: 100, request: "max-stale=40", expected: .answerFromCache(detail: "max-stale")),
        Row(response: "max-age=60", age: 100, request: "max-stale=39", expected: .forward(reason: .stale, timeout: nil)),
        Row(response: "max-age=60, must-revalidate", age: 100, request: "max-stale", expected: .forward(reason: .stale, timeout: nil)),
        Row(response: "max-age=60", age: 100, request: "only-if-cached", expected: .gatewayTimeout(detail: "only-if-cached")),
        Row(response: "max-age=60", request: "only-if-cached", expected: .answerFromCache(detail: nil)),
        Row(response: "max-age=60, immutable", request: "max-age=0", expected: .answerFromCache(detail: nil)),
        Row(response: "max-age=60, immutable", request: "no-cache", expected: .forward(reason: .request, timeout: nil)),
        Row(response: "max-age=60, immutable", age: 61, request: "max-age=0", expected: .forward(reason: .stale, timeout: nil)),
        Row(response: "no-cache, max-age=60", expected: .forward(reason: .stale, timeout: nil)),
        Row(response: "max-age=60, stale-while-revalidate=30", age: 80, expected: .answerAndRefresh(detail: "stale-while-revalidate")),
        Row(response: "max-age=60, stale-while-revalidate=30", age: 91, expected: .forward(reason: .stale, timeout: nil)),
        Row(
            response: "max-age=60, stale-while-revalidate=30", age: 80, request: "no-cache",
            expected: .forward(reason: .stale, timeout: nil)),
        Row(response: "max-age=60, stale-while-revalidate=30, must-revalidate", age: 80, expected: .forward(reason: .stale, timeout: nil)),
        Row(response: "max-age=600", routeMaxAge: .seconds(60), storedAgo: 120, expected: .forward(reason: .stale, timeout: nil)),
        Row(strategy: .cacheFirst, response: "max-age=0", request: "no-cache", expected: .answerFromCache(detail: "cache-first")),
        Row(
            strategy: .cacheFirst, response: "max-age=0", routeMaxAge: .seconds(60), storedAgo: 120,
            expected: .forward(reason: .stale, timeout: nil)),
        // The route bound counts from arrival here; an upstream Age (a CDN's) does not use it up.
        Row(
            strategy: .cacheFirst, response: "max-age=0", age: 3000, routeMaxAge: .seconds(60), storedAgo: 30,
            expected: .answerFromCache(detail: "cache-first")),
        Row(response: "max-age=6000", age: 3000, routeMaxAge: .seconds(60), storedAgo: 30, expected: .answerFromCache(detail: nil)),
        Row(strategy: .cacheOnly, response: "no-store", expected: .answerFromCache(detail: "cache-only")),
        Row(strategy: .networkFirst, response: "max-age=600", expected: .forward(reason: .request, timeout: .seconds(3))),
        Row(
            strategy: .networkFirst, response: "max-age=600", request: "only-if-cached",
            expected: .answerFromCache(detail: "only-if-cached")),
        Row(strategy: .networkOnly, response: "max-age=600", expected: .forward(reason: .request, timeout: nil)),
        Row(strategy: .staleWhileRevalidate, response: "max-age=0", expected: .answerAndRefresh(detail: "stale-while-revalidate")),
        Row(
            strategy: .staleWhileRevalidate, response: "max-age=0", routeMaxAge: .seconds(1), storedAgo: 5,
            expected: .forward(reason: .stale, timeout: nil)),
    ]

    @Test(arguments: Self.rows)
    func decides(_ row: Row) {
        let stored = row.response.map { Self.stored($0, age: row.age, storedAgo: row.storedAgo) }
        let context = Self.context(row.strategy, request: row.request, pragma: row.pragma, maxAge: row.routeMaxAge)
        #expect(CacheDecision.decide(context, stored: stored, now: Self.t0) == row.expected)
    }

    @Test("disconnected: RFC 9111 allows fresh, plainly stale, stale-if-error and precached copies; the relaxed rule the rest, saying so")
    func disconnected() {
        func use(_ cacheControl: String, age: Int, precached: Bool = false, rule: OfflineRule = .relaxed) -> DisconnectedUse {
            CacheDecision.disconnectedUse(Self.stored(cacheControl, age: age), precached: precached, rule: rule, now: Self.t0)
        }
        #expect(use("max-age=60", age: 1000) == .allowed)
        #expect(use("max-age=60", age: 1000, rule: .strict) == .allowed)
        #expect(use("max-age=60, must-revalidate", age: 10, rule: .strict) == .allowed)
        #expect(use("max-age=60, must-revalidate", age: 1000) == .relaxed(directive: "must-revalidate"))
        #expect(use("max-age=60, must-revalidate", age: 1000, rule: .strict) == .forbidden(directive: "must-revalidate"))
        #expect(use("no-cache", age: 0) == .relaxed(directive: "no-cache"))
        #expect(use("no-cache", age: 0, rule: .strict) == .forbidden(directive: "no-cache"))
        #expect(use("no-cache", age: 0, precached: true, rule: .strict) == .allowed)
        #expect(use("max-age=60, must-revalidate, stale-if-error=100", age: 150, rule: .strict) == .allowed)
        #expect(use("max-age=60, must-revalidate, stale-if-error=100", age: 161, rule: .strict) == .forbidden(directive: "must-revalidate"))
        #expect(DisconnectedUse.relaxed(directive: "no-cache").detail("offline") == "offline+relaxed-no-cache")
        #expect(DisconnectedUse.allowed.detail("offline") == "offline")
        #expect(!DisconnectedUse.forbidden(directive: "no-cache").mayAnswer)
    }
}

@Suite("Validators, Vary keys and 304 merges")
struct ValidationPartsTests {
    @Test("a client's If-None-Match (weak comparison, lists, *) and If-Modified-Since against a stored response")
    func clientConditionals() {
        let lastModified = "Sat, 01 Jan 2000 00:00:00 GMT"
        func notModified(_ headers: [(String, String)], etag: String? = "\"a\"", lastModified: String? = lastModified) -> Bool {
            ClientConditionals.notModified(
                headers.map { HeaderField(name: $0.0, value: $0.1) }, etag: etag, lastModified: lastModified, date: nil)
        }
        #expect(notModified([("If-None-Match", "\"a\"")]))
        #expect(notModified([("If-None-Match", "W/\"a\"")]))
        #expect(notModified([("If-None-Match", "\"x\", \"a\"")]))
        #expect(notModified([("If-None-Match", "*")], etag: nil))
        #expect(!notModified([("If-None-Match", "\"b\"")]))
        #expect(!notModified([("If-None-Match", "\"a\"")], etag: nil))
        // A tag sent unquoted matches the same tag quoted, either way round.
        #expect(notModified([("If-None-Match", "a")]))
        #expect(notModified([("If-None-Match", "\"a\"")], etag: "a"))
        #expect(!notModified([("If-None-Match", "\"ab\"")], etag: "a"))
        // If-None-Match wins over If-Modified-Since.
        #expect(!notModified([("If-None-Match", "\"b\""), ("If-Modified-Since", "Sun, 02 Jan 2000 00:00:00 GMT")]))
        #expect(notModified([("If-Modified-Since", "Sun, 02 Jan 2000 00:00:00 GMT")]))
        #expect(notModified([("If-Modified-Since", lastModified)]))
        #expect(!notModified([("If-Modified-Since", "Fri, 31 Dec 1999 23:59:59 GMT")]))
        #expect(!notModified([("If-Modified-Since", "yesterday")]))
        #expect(!notModified([("If-Modified-Since", lastModified)], lastModified: nil))
    }

    @Test("a 304's headers replace the stored ones by name, except framing and coding")
    func notModifiedMerge() {
        let stored = [
            HeaderField(name: "Content-Type", value: "text/css"), HeaderField(name: "Cache-Control", value: "max-age=0"),
            HeaderField(name: "Content-Length", value: "10"), HeaderField(name: "Content-Encoding", value: "gzip"),
            HeaderField(name: "X-Old", value: "1"), HeaderField(name: "X-Old", value: "2"),
        ]
        let merged = NotModifiedMerge.merge(
            stored: stored,
            notModified: [
                ("cache-control", "max-age=60"), ("Content-Length", "0"), ("Content-Encoding", "identity"), ("x-old", "3"),
                ("Content-Range", "bytes 0-9/10"),
            ].map { HeaderField(name: $0.0, value: $0.1) })
        #expect(
            merged.map { "\($0.name): \($0.value)" } == [
                "Content-Type: text/css", "Content-Length: 10", "Content-Encoding: gzip", "cache-control: max-age=60", "x-old: 3",
                "Content-Range: bytes 0-9/10",
            ])
    }

    @Test("a HEAD's 200 updates a stored 200 unless its validators or its length of the same coding disagree")
    func headResponseUpdate() {
        let stored = [
            HeaderField(name: "ETag", value: "\"v1\""), HeaderField(name: "Last-Modified", value: "Sat, 01 Jan 2000 00:00:00 GMT"),
            HeaderField(name: "Content-Encoding", value: "gzip"),
        ]
        func updates(_ headers: [(String, String)], status: Int = 200, storedStatus: Int = 200) -> Bool {
            HeadResponseUpdate.updates(
                storedStatus: storedStatus, stored: stored, storedBodySize: 10, status: status,
                headers: headers.map { HeaderField(name: $0.0, value: $0.1) })
        }
        #expect(updates([]))
        #expect(updates([("ETag", "\"v1\""), ("Cache-Control", "max-age=60")]))
        #expect(updates([("Content-Encoding", "gzip"), ("Content-Length", "10")]))
        // Another coding's length says nothing of the stored bytes.
        #expect(updates([("Content-Length", "99")]))
        #expect(!updates([("Content-Encoding", "gzip"), ("Content-Length", "11")]))
        #expect(!updates([("ETag", "\"v2\"")]))
        #expect(!updates([("Last-Modified", "Sun, 02 Jan 2000 00:00:00 GMT")]))
        #expect(!updates([], status: 410))
        #expect(!updates([], storedStatus: 404))
    }

    @Test("Accept-Language selects a variant in any case, not in another order; other fields compare case")
    func varyLanguageCase() {
        let recorded = [HeaderField(name: "accept-language", value: "en-US, de")]
        func matches(_ value: String, name: String = "Accept-Language", recorded: [HeaderField] = recorded) -> Bool {
            VaryKey.matches(storedVary: [name], storedValues: recorded, request: [HeaderField(name: name, value: value)])
        }
        #expect(matches("EN-us,De"))
        #expect(!matches("de, en-US"))
        #expect(
            VaryKey.values(["Accept-Language"], request: [HeaderField(name: "Accept-Language", value: "EN-us")]).first?.value == "en-us")
        #expect(!matches("A", name: "X-Thing", recorded: [HeaderField(name: "x-thing", value: "a")]))
    }

    @Test("Vary names leave Accept-Encoding out; values are canonical; * is refused; storage keys are stable")
    func varyKeys() throws {
        #expect(VaryKey.names(["Accept-Encoding, Accept-Language", "origin"]) == ["accept-language", "origin"])
        #expect(VaryKey.names(["Accept-Encoding"]) == [])
        #expect(VaryKey.names(["accept-language, *"]) == nil)
        let request = [HeaderField(name: "Accept-Language", value: "en,  fr"), HeaderField(name: "Accept-Encoding", value: "gzip")]
        let values = VaryKey.values(["Accept-Language, Accept-Encoding"], request: request)
        #expect(values == [HeaderField(name: "accept-language", value: "en, fr")])
        #expect(
            VaryKey.matches(
                storedVary: ["Accept-Language"], storedValues: [HeaderField(name: "Accept-Language", value: "en,fr")], request: request))
        #expect(
            !VaryKey.matches(
                storedVary: ["Accept-Language"], storedValues: [HeaderField(name: "accept-language", value: "de")], request: request))
        // Entries stored before Accept-Encoding was left out still match any encoding.
        #expect(
            VaryKey.matches(
                storedVary: ["Accept-Encoding"], storedValues: [HeaderField(name: "accept-encoding", value: "br")], request: request))
        let key = try CacheKey(url: "https://a.example/x")
        #expect(VaryKey.storageKey(key, values: []) == key)
        let variant = VaryKey.storageKey(key, values: values)
        #expect(variant.isVariant && variant == VaryKey.storageKey(key, values: values))
        #expect(variant != VaryKey.storageKey(key, values: [HeaderField(name: "accept-language", value: "de")]))
    }
}

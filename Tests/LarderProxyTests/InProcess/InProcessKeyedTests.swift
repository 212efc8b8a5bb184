import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderProxy

/// Requests keyed by their bodies (docs/SERVING.md, "Requests with bodies"): answered by the
/// origin while it answers, and from the store only when it cannot.
@Suite("In-process proxy: requests with bodies")
struct InProcessKeyedTests {
    static let origin = "http://api.test"
    static let graphql = origin + "/graphql"
    static let today =
        #"{"query":"query Today($d: String!) { today(date: $d) { id title } }","variables":{"d":"2026-11-24","n":1},"operationName":"Today"}"#
    /// The same question as `today`, written as another client would.
    static let todayReordered = """
        {"variables": {"n": 1, "d": "2026-11-24"}, "operationName": "Today",
         "query": "query Today( $d : String! ) {\\n  today(date: $d) {\\n    id\\n    title\\n  }\\n}"}
        """

    /// A POST of `body` (or another method) to `url` through the proxy.
    private func post(_ proxy: InProcessProxy, _ url: String, body: String, method: String = "POST") async throws -> RawAnswer {
        let host = (try? HTTPURL(parsing: url))?.host ?? "localhost"
        let request =
            "\(method) \(url) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        return RawAnswer(bytes: try await proxy.send(request))
    }

    /// The keyed key a body is stored under.
    private func key(_ url: String, _ body: String, _ bodyKey: BodyKey, method: String = "POST") throws -> CacheKey {
        try CacheKey(url: url).keyed(method: method, bodyKey: bodyKey, digest: bodyKey.digest(of: Array(body.utf8))!)
    }

    /// Waits until the store holds `key` with `body` (answers commit just after the client's).
    private func stored(_ key: CacheKey, body: String, in proxy: InProcessProxy) async throws {
        for _ in 0..<250 {
            if let entry = try await proxy.store.entry(for: key), (try? String(contentsOfFile: entry.bodyPath, encoding: .utf8)) == body {
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(key) never held \(body)")
    }

    @Test("a write to a declared request's URL is the app's own: forwarded, never stored or answered as the declared request")
    func writeToDeclaredURL() async throws {
        let upstream = ScriptedUpstream()
        let rpc = Self.origin + "/rpc"
        upstream.script(rpc, .init(headers: [("Content-Type", "application/json")], body: "OK"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.declaredRequests = [
                DeclaredRequest(
                    name: "feed", method: "POST", url: try! TextTemplate(parsing: rpc),
                    body: .text(try! TextTemplate(parsing: #"{"method":"feed"}"#)), bodyKey: .json, timeZone: TimeZone(identifier: "UTC")!)
            ]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            let like = #"{"method":"like","id":1}"#
            let online = try await self.post(proxy, rpc, body: like)
            #expect(online.body == "OK")
            #expect(online.header("cache-status") == "larder; fwd=method; fwd-status=200")
            let feed = try await self.post(proxy, rpc, body: #"{ "method" : "feed" }"#)
            #expect(feed.header("cache-status")?.hasSuffix("stored") == true)
            try await self.stored(try self.key(rpc, #"{"method":"feed"}"#, .json), body: "OK", in: proxy)

            upstream.script(rpc, .init(failure: .connectionRefused))
            let offlineLike = try await self.post(proxy, rpc, body: like)
            #expect(offlineLike.status == 502)
            #expect(try await proxy.store.entry(for: try self.key(rpc, like, .json)) == nil)
            let offlineFeed = try await self.post(proxy, rpc, body: #"{"method": "feed"}"#)
            #expect(offlineFeed.status == 200)
            #expect(offlineFeed.header("cache-status")?.hasSuffix("; detail=declared") == true)
        }
    }

    @Test(
        "a declared GraphQL POST goes to the origin online and is stored; offline the same question, written otherwise, gets the newest answer"
    )
    func declaredGraphQL() async throws {
        let upstream = ScriptedUpstream()
        upstream.script(Self.graphql, .init(headers: [("Cache-Control", "no-store"), ("Content-Type", "application/json")], body: "DAY1"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.declaredRequests = [
                DeclaredRequest(
                    name: "today", method: "POST", url: try! TextTemplate(parsing: Self.graphql),
                    body: .text(try! TextTemplate(parsing: Self.today)), bodyKey: .graphql, timeZone: TimeZone(identifier: "UTC")!)
            ]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            let key = try self.key(Self.graphql, Self.today, .graphql)
            let first = try await self.post(proxy, Self.graphql, body: Self.today)
            #expect(first.body == "DAY1")
            // The server's declared-request scheduler (one of its services) may have fetched it first.
            #expect(
                ["larder; fwd=uri-miss; fwd-status=200; stored", "larder; fwd=request; fwd-status=200; stored"].contains(
                    first.header("cache-status") ?? ""), "\(first.header("cache-status") ?? "")")
            try await self.stored(key, body: "DAY1", in: proxy)
            #expect(upstream.requests.last?.method == "POST")
            #expect(upstream.bodies.last == Array(Self.today.utf8), "the body goes upstream as sent")

            // Online, the origin answers even with a stored answer, and its answer replaces it.
            upstream.script(Self.graphql, .init(headers: [("Cache-Control", "no-store")], body: "DAY2"))
            let second = try await self.post(proxy, Self.graphql, body: Self.todayReordered)
            #expect(second.body == "DAY2")
            #expect(second.header("cache-status") == "larder; fwd=request; fwd-status=200; stored")
            try await self.stored(key, body: "DAY2", in: proxy)

            // The origin stops answering.
            upstream.script(Self.graphql, .init(failure: .connectionRefused))
            let offline = try await self.post(proxy, Self.graphql, body: Self.todayReordered)
            #expect(offline.status == 200)
            #expect(offline.body == "DAY2")
            #expect(offline.header("cache-status")?.hasPrefix("larder; hit;") == true)
            #expect(offline.header("cache-status")?.hasSuffix("; detail=declared") == true)
            #expect(offline.header("larder-offline") == "1")

            // Another question to the declared URL is the app's own: neither stored nor answered as the declared one's.
            let otherVariables = Self.today.replacingOccurrences(of: "2026-11-24", with: "2026-11-23")
            let other = try await self.post(proxy, Self.graphql, body: otherVariables)
            #expect(other.status == 502)
            // It is a GraphQL query of its own, kept under its own key on defaults: nothing is stored for it.
            #expect(other.header("cache-status") == "larder; fwd=uri-miss; detail=upstream-unreachable")
            // A GET of the URL is not answered from the POST's answer.
            #expect(try await proxy.get(Self.graphql).status == 502)
            // A mutation is not keyed: forwarded as any POST, saying why.
            let mutation = try await self.post(proxy, Self.graphql, body: #"{"query":"mutation { like(id: 1) }"}"#)
            #expect(mutation.header("cache-status") == "larder; fwd=method; detail=upstream-unreachable+graphql-mutation")

            proxy.server.offline.isOffline = true
            let switchedOff = try await self.post(proxy, Self.graphql, body: Self.today)
            #expect(switchedOff.body == "DAY2")
            #expect(switchedOff.header("cache-status")?.hasSuffix("; detail=declared") == true)
        }
    }

    @Test("a GraphQL GET ?query= form on a graphql route is keyed without its GraphQL parameters")
    func graphQLGetForm() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.graphql + "?query=%7B%20today%20%7B%20id%20%7D%20%7D&lang=en"
        let sameQuestion = Self.graphql + "?lang=en&query=%7Btoday%7Bid%7D%7D%23%20comment"
        upstream.script(url, .init(headers: [("Cache-Control", "no-cache")], body: "TODAY"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.routes = [CacheRoute(pattern: .glob(ExcludeGlob("/graphql")), strategy: nil, bodyKey: .graphql)]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            #expect(try await proxy.get(url).body == "TODAY")
            let key = try CacheKey(url: Self.graphql + "?lang=en")
                .keyed(method: "GET", bodyKey: .graphql, digest: BodyKey.graphQLDigest(queryOf: try HTTPURL(parsing: url))!)
            try await self.stored(key, body: "TODAY", in: proxy)
            #expect(try await proxy.store.entry(for: try CacheKey(url: url)) == nil, "not under the URL's own key")

            proxy.server.offline.isOffline = true
            let offline = try await proxy.get(sameQuestion)
            #expect(offline.body == "TODAY")
            #expect(offline.header("cache-status")?.hasSuffix("; detail=offline") == true)
        }
    }

    @Test("a route opt-in keys POSTs by canonical JSON and answers them only when the origin cannot; other routes' POSTs go as before")
    func routeOptIn() async throws {
        let upstream = ScriptedUpstream()
        let search = Self.origin + "/api/search"
        let other = Self.origin + "/api/other"
        upstream.script(search, .init(headers: [("Cache-Control", "max-age=60")], body: "RESULTS"))
        upstream.script(other, .init(body: "OTHER"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.routes = [CacheRoute(pattern: .glob(ExcludeGlob("/api/search")), strategy: nil, cacheMethods: ["POST"], bodyKey: .json)]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            // A GET entry for the URL, which keyed POSTs leave alone (they are reads).
            #expect(try await proxy.get(search).body == "RESULTS")
            let getKey = try CacheKey(url: search)
            try await self.stored(getKey, body: "RESULTS", in: proxy)

            let body = #"{"q":"cats","page":1}"#
            #expect(try await self.post(proxy, search, body: body).body == "RESULTS")
            try await self.stored(try self.key(search, body, .json), body: "RESULTS", in: proxy)
            #expect(try await self.post(proxy, other, body: body).header("cache-status") == "larder; fwd=method; fwd-status=200")
            #expect(try await proxy.store.entry(for: getKey) != nil, "a keyed POST does not invalidate the URL's GET entry")

            upstream.script(search, .init(failure: .connectionRefused))
            upstream.script(other, .init(failure: .connectTimeout))
            let offline = try await self.post(proxy, search, body: "{ \"page\": 1,\n \"q\": \"cats\" }")
            #expect(offline.body == "RESULTS")
            #expect(offline.header("cache-status")?.hasSuffix("; detail=upstream-unreachable") == true)
            #expect(offline.header("larder-offline") == "1")
            // Not JSON: not keyed, forwarded as any POST; sent as JSON, it says so.
            #expect(
                try await self.post(proxy, search, body: "q=cats").header("cache-status")
                    == "larder; fwd=method; detail=upstream-unreachable+invalid-json")
            let notOptedIn = try await self.post(proxy, other, body: body)
            #expect(notOptedIn.status == 504)
            #expect(notOptedIn.header("cache-status") == "larder; fwd=method; detail=upstream-unreachable")
            #expect(try await self.post(proxy, search, body: body, method: "PUT").header("cache-status")?.contains("fwd=method") == true)
        }
    }

    @Test("a body over the limit is forwarded whole and streamed, not stored")
    func overTheLimit() async throws {
        let upstream = ScriptedUpstream()
        let search = Self.origin + "/api/search"
        upstream.script(search, .init(body: "BIG"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.routes = [CacheRoute(pattern: .glob(ExcludeGlob("/api/search")), strategy: nil, cacheMethods: ["POST"])]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            let body = String(repeating: "x", count: BodyKey.maximumBodySize + 10)
            let answer = try await self.post(proxy, search, body: body)
            #expect(answer.body == "BIG")
            #expect(answer.header("cache-status") == "larder; fwd=method; fwd-status=200")
            #expect(upstream.bodies.last??.count == body.utf8.count, "every byte went upstream")
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await proxy.store.entries(withBase: "http://api.test/api/search", limit: 10).isEmpty)

            // At the limit it is keyed.
            let atLimit = String(repeating: "y", count: BodyKey.maximumBodySize)
            #expect(
                try await self.post(proxy, search, body: atLimit).header("cache-status") == "larder; fwd=uri-miss; fwd-status=200; stored")
        }
    }

    @Test(
        "a 5xx is relayed even with a stored answer; a hung origin is answered from the store at the network timeout and its late answer stored"
    )
    func serverErrorsAndHungOrigins() async throws {
        let upstream = ScriptedUpstream()
        let search = Self.origin + "/api/search"
        upstream.script(search, .init(headers: [("Cache-Control", "no-store")], body: "FIRST"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.networkTimeout = .milliseconds(200)
            $0.routes = [CacheRoute(pattern: .glob(ExcludeGlob("/api/search")), strategy: nil, cacheMethods: ["POST"], bodyKey: .json)]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            let body = #"{"q":"cats"}"#
            let key = try self.key(search, body, .json)
            _ = try await self.post(proxy, search, body: body)
            try await self.stored(key, body: "FIRST", in: proxy)

            upstream.script(search, .init(status: 503, headers: [], body: "DOWN"))
            let down = try await self.post(proxy, search, body: body)
            #expect(down.status == 503)
            #expect(down.body == "DOWN")
            #expect(down.header("cache-status") == "larder; fwd=request; fwd-status=503; detail=not-stored-status-503")

            // Far beyond the timeout, so a loaded machine cannot blur the two.
            upstream.script(search, .init(headers: [("Cache-Control", "no-store")], body: "LATE", delay: .seconds(2)))
            let hung = try await self.post(proxy, search, body: body)
            #expect(hung.body == "FIRST")
            #expect(hung.header("cache-status")?.hasSuffix("; detail=network-timeout") == true)
            #expect(hung.header("larder-offline") == "1")
            try await self.stored(key, body: "LATE", in: proxy)
        }
    }

    @Test("on defaults a GraphQL query is kept and answered when the origin cannot, except under a strict or network-only route")
    func graphQLQueryOnDefaults() async throws {
        let upstream = ScriptedUpstream()
        let strict = Self.origin + "/strict/graphql"
        let networkOnly = Self.origin + "/live/graphql"
        for url in [Self.graphql, strict, networkOnly] {
            upstream.script(url, .init(headers: [("Cache-Control", "no-store")], body: "TODAY"))
        }
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.routes = [
                CacheRoute(pattern: .glob(ExcludeGlob("/strict/**")), strategy: nil, offline: .strict),
                CacheRoute(pattern: .glob(ExcludeGlob("/live/**")), strategy: .networkOnly),
            ]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            for url in [Self.graphql, strict, networkOnly] {
                #expect(try await self.post(proxy, url, body: Self.today).body == "TODAY")
            }
            try await self.stored(try self.key(Self.graphql, Self.today, .graphql), body: "TODAY", in: proxy)
            #expect(try await proxy.store.entry(for: try self.key(strict, Self.today, .graphql)) == nil)
            #expect(try await proxy.store.entry(for: try self.key(networkOnly, Self.today, .graphql)) == nil)

            for url in [Self.graphql, strict, networkOnly] {
                upstream.script(url, .init(failure: .connectionRefused))
            }
            let offline = try await self.post(proxy, Self.graphql, body: Self.todayReordered)
            #expect(offline.body == "TODAY")
            #expect(offline.header("cache-status")?.hasSuffix("; detail=upstream-unreachable+graphql-query") == true)
            #expect(try await self.post(proxy, strict, body: Self.today).status == 502)
            #expect(try await self.post(proxy, networkOnly, body: Self.today).status == 502)
        }
    }
}

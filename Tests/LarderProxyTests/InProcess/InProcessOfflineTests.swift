import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderProxy

/// Stand-ins while the origin cannot answer: the same path under another cache-busting query, and
/// the app shell for a navigation (docs/SERVING.md, "Offline fallback").
@Suite("In-process proxy: offline stand-ins")
struct InProcessOfflineTests {
    static let origin = "http://app.test"

    /// Waits until the proxy's store holds `url` (bodies commit just after the client's answer).
    private func stored(_ url: String, in proxy: InProcessProxy) async throws {
        for _ in 0..<100 {
            if try await proxy.store.entry(for: try CacheKey(url: url)) != nil { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("\(url) was never stored")
    }

    @Test("an API call with a new cache-busting number gets the newest stored sibling, only while the origin cannot answer")
    func cacheBusters() async throws {
        let upstream = ScriptedUpstream()
        let first = Self.origin + "/api/settings?1795492600000"
        let second = Self.origin + "/api/settings?1795492650000"
        upstream.script(first, .init(headers: [("Cache-Control", "no-cache")], body: "OLDER"))
        upstream.script(second, .init(headers: [("Cache-Control", "no-cache")], body: "NEWER"))
        upstream.script(Self.origin + "/api/items?page=1", .init(body: "PAGE1"))
        try await InProcessProxy.with(upstream: upstream, configure: { $0.networkTimeout = .milliseconds(200) }) { proxy in
            for url in [first, second, Self.origin + "/api/items?page=1"] {
                #expect(try await proxy.get(url).status == 200)
                try await self.stored(url, in: proxy)
            }
            // Online, a new number is a new request: the origin answers it.
            let third = Self.origin + "/api/settings?1795492696035"
            upstream.script(third, .init(body: "LIVE"))
            #expect(try await proxy.get(third).body == "LIVE")

            // A hung origin: the newest stored sibling within the network timeout, saying why.
            let fourth = Self.origin + "/api/settings?1795492699999"
            // The origin answers only once the client has its answer: no clock to blur the two.
            let gate = ScriptedUpstream.Gate()
            defer { gate.open() }
            upstream.script(fourth, .init(body: "LATE", gate: gate))
            let hung = try await proxy.get(fourth)
            #expect(hung.body == "LIVE")
            #expect(hung.header("cache-status")?.hasSuffix("detail=network-timeout+query-ignored") == true)
            #expect(hung.header("larder-offline") == "1")
            #expect(gate.passed == 0, "the client waited for the hung origin")
            // Its late answer stays held (until the end), so the newest sibling below is still LIVE.

            proxy.server.offline.isOffline = true
            let offline = try await proxy.get(Self.origin + "/api/settings?1795492700001")
            #expect(offline.status == 200)
            #expect(offline.body == "LIVE", "the newest stored sibling")
            #expect(offline.header("cache-status")?.hasSuffix("detail=offline+query-ignored") == true)
            // A meaningful parameter differs: no stand-in.
            let other = try await proxy.get(Self.origin + "/api/items?page=2")
            #expect(other.status == 504)
            #expect(other.header("cache-status") == "larder; fwd=uri-miss; detail=offline")
        }
    }

    @Test("offlineMatch: exact turns stand-ins off for a route, ignore-query accepts any query")
    func offlineMatchPerRoute() async throws {
        let upstream = ScriptedUpstream()
        upstream.script(Self.origin + "/exact/a?1795492600000", .init(body: "EXACT"))
        upstream.script(Self.origin + "/search?q=cats", .init(body: "CATS"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.routes = [
                CacheRoute(pattern: .glob(ExcludeGlob("/exact/**")), strategy: nil, offlineMatch: .exact),
                CacheRoute(pattern: .glob(ExcludeGlob("/search")), strategy: nil, offlineMatch: .ignoreQuery),
            ]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            for url in [Self.origin + "/exact/a?1795492600000", Self.origin + "/search?q=cats"] {
                _ = try await proxy.get(url)
                try await self.stored(url, in: proxy)
            }
            proxy.server.offline.isOffline = true
            #expect(try await proxy.get(Self.origin + "/exact/a?1795492699999").status == 504)
            let search = try await proxy.get(Self.origin + "/search?q=dogs")
            #expect(search.body == "CATS")
            #expect(search.header("cache-status")?.hasSuffix("; detail=offline+query-ignored") == true)
        }
    }

    @Test("a navigation with nothing stored gets the declared app shell while the origin cannot answer; other requests do not")
    func navigationFallback() async throws {
        let upstream = ScriptedUpstream()
        let shell = Self.origin + "/"
        upstream.script(shell, .init(headers: [("Cache-Control", "no-cache"), ("Content-Type", "text/html")], body: "SHELL"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.navigationFallbacks = [
                NavigationFallback(shell: try! HTTPURL(parsing: shell), deny: [ExcludeGlob("/api/**")])
            ]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            _ = try await proxy.get(shell, headers: [("Accept", "text/html")])
            try await self.stored(shell, in: proxy)
            // Online, a navigation goes to the origin as usual.
            upstream.script(Self.origin + "/settings", .init(headers: [("Content-Type", "text/html")], body: "SETTINGS"))
            #expect(try await proxy.get(Self.origin + "/settings", headers: [("Sec-Fetch-Mode", "navigate")]).body == "SETTINGS")

            proxy.server.offline.isOffline = true
            let page = try await proxy.get(Self.origin + "/profile/7", headers: [("Sec-Fetch-Mode", "navigate"), ("Accept", "text/html")])
            #expect(page.status == 200)
            #expect(page.body == "SHELL")
            #expect(page.header("cache-status")?.hasSuffix("; detail=offline+relaxed-no-cache+navigation-fallback") == true)
            #expect(page.header("larder-offline") == "1")
            // Stored pages answer as themselves; a script's fetch and denied URLs get no shell.
            #expect(try await proxy.get(Self.origin + "/settings", headers: [("Sec-Fetch-Mode", "navigate")]).body == "SETTINGS")
            #expect(try await proxy.get(Self.origin + "/profile/7", headers: [("Sec-Fetch-Mode", "cors")]).status == 504)
            #expect(try await proxy.get(Self.origin + "/api/me", headers: [("Sec-Fetch-Mode", "navigate")]).status == 504)
            #expect(try await proxy.get("http://other.test/x", headers: [("Sec-Fetch-Mode", "navigate")]).status == 504)
        }
    }

    @Test("connect failures that come after the client was answered from the cache still count for the origin's back-off")
    func lateFailuresBackOff() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/page"
        upstream.script(url, .init(headers: [("Cache-Control", "max-age=0")], body: "OLD"))
        // One probe in the whole test: the second request after the back-off starts is never one.
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.networkTimeout = .milliseconds(100)
            $0.backoff.probeInterval = 3600
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            _ = try await proxy.get(url)
            try await self.stored(url, in: proxy)
            upstream.script(url, .init(delay: .milliseconds(500), failure: .connectTimeout))
            for _ in 0..<2 {
                #expect(try await proxy.get(url).body == "OLD")
            }
            var backingOff = false
            for _ in 0..<100 where !backingOff {
                try await Task.sleep(for: .milliseconds(50))
                backingOff = !proxy.server.health.shouldAttempt(origin: Self.origin)
            }
            #expect(backingOff, "two late connect timeouts put the origin in back-off")
            let probe = try await proxy.get(url)
            #expect(probe.body == "OLD")
            #expect(probe.header("cache-status")?.hasSuffix("detail=network-timeout") == true, "the first request goes as the probe")
            let answer = try await proxy.get(url)
            #expect(answer.header("cache-status")?.hasSuffix("detail=upstream-backoff") == true)
        }
    }
}

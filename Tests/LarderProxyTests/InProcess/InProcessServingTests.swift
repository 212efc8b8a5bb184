import Foundation
import LarderHTTP
import LarderStore
import LarderUpstream
import Testing

@testable import LarderProxy

/// The whole proxy in this process, with a scripted upstream: the cache transaction's paths as a
/// client sees them, without spawning the binary or an origin.
@Suite("In-process proxy: coalescing, stale-if-error, 304, network-first, offline")
struct InProcessServingTests {
    static let origin = "http://site.example"

    @Test("concurrent misses for one URL make one upstream request; the others answer from what it stored")
    func coalescing() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/slow.js"
        upstream.script(url, .init(body: "SLOW", delay: .milliseconds(300)))
        try await InProcessProxy.with(upstream: upstream) { proxy in
            let answers = try await proxy.get(url, times: 5)
            #expect(answers.allSatisfy { $0.status == 200 && $0.body == "SLOW" })
            #expect(upstream.requests(for: url).count == 1)
            let statuses = answers.compactMap { $0.header("cache-status") }.sorted()
            #expect(statuses.filter { $0.contains("detail=coalesced") }.count == 4, "\(statuses)")
            #expect(statuses.filter { $0.hasPrefix("larder; fwd=uri-miss; fwd-status=200; stored") }.count == 1, "\(statuses)")
        }
    }

    @Test("followers wait for a body that keeps coming past the stall timeout, rather than each downloading it again")
    func followersWaitForALongBody() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/large.wasm"
        let body = String(repeating: "0123456789abcdef", count: 4_096)
        // Eight pieces half a second apart: longer in all than the stall timeout, each gap far
        // shorter, and all far within five stall timeouts, even on a busy machine.
        upstream.script(url, .init(body: body, slowBody: (pieces: 8, interval: .milliseconds(500))))
        try await InProcessProxy.with(upstream: upstream, configure: { $0.idleTimeout = .seconds(3) }) { proxy in
            let answers = try await proxy.get(url, times: 5)
            #expect(answers.allSatisfy { $0.status == 200 && $0.body == body })
            #expect(upstream.requests(for: url).count == 1, "followers downloaded it again")
            #expect(answers.compactMap { $0.header("cache-status") }.filter { $0.contains("detail=coalesced") }.count == 4)
        }
    }

    @Test("when the leading request's client goes away mid-body, the body is still stored for the requests waiting on it")
    func leaderGoneStillStoresForFollowers() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/shared-large.bin"
        let body = String(repeating: "0123456789abcdef", count: 8_192)
        upstream.script(url, .init(body: body, slowBody: (pieces: 8, interval: .milliseconds(150))))
        try await InProcessProxy.with(upstream: upstream) { proxy in
            // The first request leads, and its client hangs up once the head has come.
            async let leader: Void = proxy.getAndHangUp(url, after: 1)
            while upstream.requests(for: url).isEmpty {
                try await Task.sleep(for: .milliseconds(10))
            }
            let followers = try await proxy.get(url, times: 4)
            try await leader
            #expect(followers.allSatisfy { $0.status == 200 && $0.body == body })
            #expect(upstream.requests(for: url).count == 1, "the followers downloaded it again")
        }
    }

    @Test("followers of an answer that will not be stored are let go at the head, not held while its body comes")
    func followersOfAnUnstoredAnswerFetchAtOnce() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/live-feed"
        let body = String(repeating: "x", count: 20_000)
        // Six seconds of body; the followers must not wait for it.
        upstream.script(
            url, .init(headers: [("Cache-Control", "no-store")], body: body, slowBody: (pieces: 20, interval: .milliseconds(300))))
        try await InProcessProxy.with(upstream: upstream) { proxy in
            try await withThrowingTaskGroup(of: RawAnswer.self) { group in
                group.addTask { try await proxy.get(url) }
                while upstream.requests(for: url).isEmpty {
                    try await Task.sleep(for: .milliseconds(10))
                }
                for _ in 0..<4 {
                    group.addTask { try await proxy.get(url) }
                }
                let started = ContinuousClock.now
                while upstream.requests(for: url).count < 5, ContinuousClock.now - started < .seconds(4) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(upstream.requests(for: url).count == 5, "the followers waited for a body that is not stored")
                for try await answer in group {
                    #expect(answer.status == 200 && answer.body == body)
                }
            }
        }
    }

    @Test("a follower of a fetch that stalls gives up after the stall timeout and fetches alone")
    func followersOfAStalledFetchFetchAlone() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/stalled.js"
        let gate = ScriptedUpstream.Gate()
        upstream.script(url, .init(body: "LATE", gate: gate))
        try await InProcessProxy.with(upstream: upstream, configure: { $0.idleTimeout = .milliseconds(500) }) { proxy in
            async let leader = proxy.get(url)
            while upstream.requests(for: url).isEmpty {
                try await Task.sleep(for: .milliseconds(10))
            }
            async let follower = proxy.get(url)
            // The follower gives up on the hung leader and asks upstream itself.
            while upstream.requests(for: url).count < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            gate.open()
            #expect(try await leader.body == "LATE")
            #expect(try await follower.body == "LATE")
        }
    }

    @Test("a 5xx from upstream is answered from a stale copy (stale-if-error); a must-revalidate copy is not used")
    func staleIfError() async throws {
        let upstream = ScriptedUpstream()
        let usable = Self.origin + "/usable.js"
        let strict = Self.origin + "/strict.js"
        upstream.script(usable, .init(headers: [("Cache-Control", "max-age=0")], body: "OLD"))
        upstream.script(strict, .init(headers: [("Cache-Control", "max-age=0, must-revalidate")], body: "OLD"))
        try await InProcessProxy.with(upstream: upstream) { proxy in
            _ = try await proxy.get(usable)
            _ = try await proxy.get(strict)
            upstream.script(usable, .init(status: 503, headers: [], body: "down"))
            upstream.script(strict, .init(status: 503, headers: [], body: "down"))
            let served = try await proxy.get(usable)
            #expect(served.status == 200)
            #expect(served.body == "OLD")
            #expect(served.header("cache-status")?.contains("detail=upstream-503") == true)
            let relayed = try await proxy.get(strict)
            #expect(relayed.status == 503)
            #expect(relayed.body == "down")
        }
    }

    @Test("a stale copy is validated with its ETag; a 304 renews it and the client gets the stored body")
    func notModified() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/v.js"
        upstream.script(url, .init(headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v1\"")], body: "V1"))
        try await InProcessProxy.with(upstream: upstream) { proxy in
            _ = try await proxy.get(url)
            upstream.script(url, .init(status: 304, headers: [("Cache-Control", "max-age=600"), ("ETag", "\"v1\"")]))
            let revalidated = try await proxy.get(url)
            #expect(revalidated.status == 200)
            #expect(revalidated.body == "V1")
            #expect(revalidated.header("cache-status") == "larder; fwd=stale; fwd-status=304; stored; detail=revalidated")
            #expect(upstream.requests(for: url).last?.headers.contains { $0.name == "If-None-Match" && $0.value == "\"v1\"" } == true)
            // Renewed for ten minutes: the next request is a hit.
            let hit = try await proxy.get(url)
            #expect(hit.header("cache-status")?.hasPrefix("larder; hit") == true)
            #expect(upstream.requests(for: url).count == 2)
        }
    }

    @Test("network-first: a slow network serves the precached page at the timeout, and the late answer is stored")
    func networkFirstTimeout() async throws {
        let upstream = ScriptedUpstream()
        let url = Self.origin + "/index.html"
        try await InProcessProxy.with(upstream: upstream, configure: { $0.networkTimeout = .milliseconds(200) }) { proxy in
            let writer = try proxy.store.makeBodyWriter()
            try writer.write(contentsOf: Array("PRECACHED".utf8))
            let head = StoredResponseHead(
                url: url, status: 200, headers: [HeaderField(name: "Content-Type", value: "text/html")], requestTime: Date(),
                responseTime: Date())
            _ = try await writer.commit(key: try CacheKey(url: url), head: head, kind: .precached, expectedLength: nil)

            // The origin answers only once the client has its answer: no clock to blur the two.
            let gate = ScriptedUpstream.Gate()
            defer { gate.open() }
            upstream.script(url, .init(headers: [("Content-Type", "text/html")], body: "NEW", gate: gate))
            let answer = try await proxy.get(url)
            #expect(answer.body == "PRECACHED")
            #expect(answer.header("cache-status")?.contains("detail=network-timeout") == true)
            #expect(gate.passed == 0, "the client waited for the network")
            gate.open()

            // The late answer replaces the copy in the background.
            var stored = ""
            for _ in 0..<300 where stored != "NEW" {
                try await Task.sleep(for: .milliseconds(100))
                if let entry = try await proxy.store.entry(for: try CacheKey(url: url)) {
                    stored = (try? String(contentsOfFile: entry.bodyPath, encoding: .utf8)) ?? ""
                }
            }
            #expect(stored == "NEW")
        }
    }

    @Test("offline: a stored copy is served whatever its age, a miss is a 504 that never reaches upstream")
    func offline() async throws {
        let upstream = ScriptedUpstream()
        let seen = Self.origin + "/seen.css"
        upstream.script(seen, .init(headers: [("Cache-Control", "max-age=0")], body: "body{}"))
        try await InProcessProxy.with(upstream: upstream) { proxy in
            _ = try await proxy.get(seen)
            proxy.server.offline.isOffline = true
            let hit = try await proxy.get(seen)
            #expect(hit.body == "body{}")
            #expect(hit.header("cache-status")?.contains("detail=offline") == true)
            let miss = try await proxy.get(Self.origin + "/never.js")
            #expect(miss.status == 504)
            #expect(miss.header("cache-status") == "larder; fwd=uri-miss; detail=offline")
            #expect(upstream.requests.count == 1)
        }
    }

    @Test("back-off is per origin: a dead port on a host does not hold up a live one on the same host")
    func backoffPerOrigin() async throws {
        let upstream = ScriptedUpstream()
        let dead = "http://127.0.0.1:8899/api"
        let live = "http://127.0.0.1:8897/api"
        upstream.script(dead, .init(failure: .connectionRefused))
        upstream.script(live, .init(body: "LIVE"))
        // One probe in the whole test (the third request): the fourth is never one, however slow the machine.
        try await InProcessProxy.with(upstream: upstream, configure: { $0.backoff.probeInterval = 3600 }) { proxy in
            for _ in 0..<3 {
                _ = try await proxy.get(dead)
            }
            let backingOff = try await proxy.get(dead)
            #expect(backingOff.status == 502)
            #expect(backingOff.header("cache-status")?.contains("detail=upstream-backoff") == true)
            #expect(proxy.server.health.shouldAttempt(origin: "http://127.0.0.1:8899") == false)
            let answer = try await proxy.get(live)
            #expect(answer.status == 200)
            #expect(answer.body == "LIVE")
            #expect(proxy.server.health.shouldAttempt(origin: "http://127.0.0.1:8897"))
        }
    }

    @Test("a hung origin does not hold a stored copy past the network timeout (a must-revalidate one too); a strict route's waits")
    func hungOriginWithCopy() async throws {
        let upstream = ScriptedUpstream()
        let usable = Self.origin + "/page"
        let relaxed = Self.origin + "/theme.css"
        let strict = Self.origin + "/strict/page"
        for url in [relaxed, strict] {
            upstream.script(url, .init(headers: [("Cache-Control", "max-age=0, must-revalidate")], body: "OLD"))
        }
        upstream.script(usable, .init(headers: [("Cache-Control", "max-age=0")], body: "OLD"))
        let configure: @Sendable (inout ProxyConfiguration) -> Void = {
            $0.networkTimeout = .milliseconds(200)
            $0.routes = [CacheRoute(pattern: .glob(ExcludeGlob("/strict/**")), strategy: nil, offline: .strict)]
        }
        try await InProcessProxy.with(upstream: upstream, configure: configure) { proxy in
            for url in [usable, relaxed, strict] {
                _ = try await proxy.get(url)
            }
            // The origin answers the first two only once their clients have answers: no clock to
            // blur the two. The strict route's client waits for its answer.
            let gate = ScriptedUpstream.Gate()
            defer { gate.open() }
            for url in [usable, relaxed] {
                upstream.script(url, .init(headers: [("Cache-Control", "max-age=600")], body: "NEW", gate: gate))
            }
            upstream.script(strict, .init(headers: [("Cache-Control", "max-age=600")], body: "NEW", delay: .seconds(1)))
            let answer = try await proxy.get(usable)
            #expect(answer.body == "OLD")
            #expect(answer.header("cache-status")?.hasPrefix("larder; hit; ttl=") == true)
            #expect(answer.header("cache-status")?.hasSuffix("; detail=network-timeout") == true)
            #expect(answer.header("larder-offline") == "1")
            let theme = try await proxy.get(relaxed)
            #expect(theme.body == "OLD")
            #expect(theme.header("cache-status")?.contains("detail=network-timeout+relaxed-must-revalidate") == true)
            #expect(gate.passed == 0, "a client waited for the hung origin")
            gate.open()
            // The strict route's must-revalidate copy may not stand in: the client waits for the origin.
            let waited = try await proxy.get(strict)
            #expect(waited.body == "NEW")
            #expect(waited.header("larder-offline") == nil)
            // The late answer refreshed the usable copy in the background.
            var refreshed = false
            for _ in 0..<300 where !refreshed {
                try await Task.sleep(for: .milliseconds(100))
                refreshed = try await proxy.get(usable).body == "NEW"
            }
            #expect(refreshed)
        }
    }
}

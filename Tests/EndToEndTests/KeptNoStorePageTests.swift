import Foundation
import LarderTestSupport
import Testing

/// An admin site that marks every page `no-store`: /dev/offline's **Keep this site's pages for
/// offline use** (docs/SERVING.md, "Pages marked no-store, kept on request").
@Suite("End to end: pages marked no-store, kept on request", .serialized)
struct KeptNoStorePageTests {
    /// `/dev/offline.json`'s `keptNoStore` section.
    static func section(_ larder: LarderProcess) async throws -> [String: Any] {
        let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
        let json = try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any]
        return json?["keptNoStore"] as? [String: Any] ?? [:]
    }

    @Test(
        "a no-store page behind a login: missed offline and named on /dev/offline; once kept and visited it answers offline to the same person only, never online, and Stop keeping removes it"
    )
    func keepNoStorePages() async throws {
        // Another machine's client, told apart by its address and cookie (docs/SERVING.md, "Private
        // answers"): this machine's own address, which Larder does not take for loopback.
        let address = try #require(RawConnection.nonLoopbackIPv4(), "this machine has no non-loopback IPv4 address")
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        // Each answer is new: a copy served shows as an older answer.
        origin.setRoute(
            "/admin/",
            .dynamic { request in
                .text(
                    "<p>admin of \(request.header("cookie") ?? "nobody"), answer \(UUID().uuidString)</p>", contentType: "text/html",
                    headers: [("Cache-Control", "max-age=0, no-cache, no-store, must-revalidate, private")])
            })
        // The browser's own service (an updater), which no page asked for: never offered.
        let updater = try await TestOrigin.start()
        defer { Task { try? await updater.stop() } }
        updater.setRoute("/update", .text("{}", contentType: "application/json", headers: [("Cache-Control", "no-store")]))
        let page = origin.url("/admin/")
        let site = String(origin.url("/").dropLast())
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"{"lan": {"allowUpstream": ["127.0.0.1:\#(origin.port)"]}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let larder = try await LarderProcess(serve: ["--host", "0.0.0.0", "--allow", "\(address)/32", "--config", config])
        let proxy = "http://\(address):\(larder.port)"
        func visit(_ cookie: String?, via: String? = nil, _ extra: [String] = []) async throws -> CurlResult {
            try await Curl.run(page, proxy: via ?? proxy, arguments: (cookie.map { ["-H", "Cookie: \($0)"] } ?? []) + extra)
        }
        // The first answer from the origin once it is back (after failures it backs off, and one
        // request a second goes to it as a probe).
        func online(_ cookie: String) async throws -> CurlResult {
            var answer = try await visit(cookie)
            let deadline = ContinuousClock.now + .seconds(15)
            while answer.status != 200 || answer.header("larder-offline") != nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(300))
                answer = try await visit(cookie)
            }
            return answer
        }
        do {
            let first = try await visit("session=alice")
            #expect(first.status == 200)
            let browsers = try await Curl.run(
                updater.url("/update"), proxy: larder.proxyURL, arguments: ["-H", "Sec-Fetch-Site: none", "-H", "Sec-Fetch-Mode: no-cors"])
            #expect(browsers.header("cache-status")?.contains("detail=not-stored-no-store") == true, "\(browsers.headers)")
            #expect(first.header("cache-status")?.contains("detail=not-stored-no-store") == true, "\(first.headers)")
            try await origin.stop()
            let missed = try await visit("session=alice")
            #expect(missed.status == 502, "not kept before the user chose: \(missed.headers)")
            let candidates = try await Self.section(larder)["candidates"] as? [[String: Any]] ?? []
            #expect(candidates.map { $0["origin"] as? String } == [site], "the app's site alone: \(candidates)")
            #expect(candidates.first?["latestURL"] as? String == page)
            let html = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
            #expect(
                html.text.contains("/dev/offline/actions/keep-no-store") && html.text.contains("Keep this site's pages for offline use"))

            let pressed = try await AnswerOfflineTests.press("keep-no-store", ["origin=\(site)"], larder: larder)
            #expect(pressed.status == 303, "\(pressed.status) \(pressed.text)")
            let file = larder.cacheDirectory + "/keep-no-store.json"
            #expect((try? String(contentsOfFile: file, encoding: .utf8))?.contains(site) == true)
            let chosen = try await Self.section(larder)
            #expect(chosen["kept"] as? [String] == [site], "\(chosen)")
            #expect((chosen["candidates"] as? [[String: Any]])?.isEmpty == true, "a chosen site is no longer offered")

            // One online visit keeps it, for this person; online it is never the answer.
            try await origin.restart()
            let kept = try await online("session=alice")
            #expect(kept.header("cache-status")?.contains("stored; detail=kept-no-store") == true, "\(kept.headers)")
            await entriesStored(in: larder)
            let fresh = try await visit("session=alice")
            #expect(fresh.text != kept.text, "online, the origin answers: \(fresh.headers)")
            #expect(fresh.header("cache-status")?.contains("hit") == false, "\(fresh.headers)")
            #expect(fresh.header("cache-status")?.contains("fwd=stale") == true, "\(fresh.headers)")
            await entriesStored(in: larder)

            // The origin stops: the same person gets the latest answer, which says why; nobody else does.
            try await origin.stop()
            let offline = try await visit("session=alice")
            #expect(offline.status == 200, "\(offline.headers)")
            #expect(offline.text == fresh.text)
            #expect(offline.header("cache-status")?.contains("+kept-no-store") == true, "\(offline.headers)")
            #expect(offline.header("larder-offline") == "1")
            for (cookie, via) in [(nil, proxy), ("session=bob", proxy), ("session=alice", larder.proxyURL)] as [(String?, String)] {
                let other = try await visit(cookie, via: via)
                #expect(other.status != 200 && !other.text.contains("alice"), "\(cookie ?? "no cookie") via \(via): \(other.headers)")
            }

            // Online again: the origin answers, not the kept copy.
            try await origin.restart()
            let again = try await online("session=alice")
            #expect(again.status == 200 && again.text != fresh.text, "\(again.headers)")
            #expect(again.header("cache-status")?.contains("hit") == false, "\(again.headers)")

            // Stop keeping: the kept copy goes.
            let stopped = try await AnswerOfflineTests.press("stop-keeping-no-store", ["origin=\(site)"], larder: larder)
            #expect(stopped.status == 303)
            let flash = (stopped.header("location") ?? "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            #expect(flash.contains("removed 1 kept copy"), "\(flash)")
            #expect((try? String(contentsOfFile: file, encoding: .utf8))?.contains(site) == false)
            try await origin.stop()
            let gone = try await visit("session=alice")
            #expect(gone.status == 502, "\(gone.headers)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test("a broken keep-no-store.json is named with its problem, keeps nothing, and is never overwritten")
    func brokenFile() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let file = cache + "/keep-no-store.json"
        let broken = #"{"sites": ["https://admin.example"#
        try broken.write(toFile: file, atomically: true, encoding: .utf8)
        let larder = try await LarderProcess(cacheDirectory: cache)
        do {
            #expect(larder.log.contains(file), "the log names the file: \(larder.log)")
            #expect((try await Self.section(larder)["problem"] as? String)?.hasPrefix(file) == true)
            let pressed = try await AnswerOfflineTests.press("keep-no-store", ["origin=https://other.example"], larder: larder)
            #expect(pressed.status == 303)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == broken, "nothing the user wrote is lost")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }
}

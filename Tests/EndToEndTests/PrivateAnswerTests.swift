import Foundation
import LarderTestSupport
import Testing

/// Personal answers on one machine, and declared answers fetched with the user's token
/// (docs/SERVING.md, "Private answers"). Clients on other machines: LANModeTests.
@Suite("End to end: private answers", .serialized)
struct PrivateAnswerTests {
    @Test(
        "on Larder's own machine, a page fetched with cookies is the one user's: answered to their requests with or without cookies, never to a read by a page of another site, online or offline"
    )
    func loopbackCookies() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute(
            "/account.html",
            .dynamic { request in
                .text(
                    "<p>account of \(request.header("cookie") ?? "nobody")</p>", contentType: "text/html",
                    headers: [("Cache-Control", "max-age=600")])
            })
        let larder = try await LarderProcess()
        defer { Task { await larder.tearDown() } }
        let account = origin.url("/account.html")

        let signedIn = try await Curl.run(account, proxy: larder.proxyURL, arguments: ["-H", "Cookie: s=1"])
        #expect(signedIn.text == "<p>account of s=1</p>")
        await entriesStored(in: larder)
        // The one user's browser sends other cookies as they change, or none in a fresh profile: still theirs.
        for cookie in [["-H", "Cookie: s=2"], []] {
            let again = try await Curl.run(account, proxy: larder.proxyURL, arguments: cookie + ["-H", "Sec-Fetch-Site: same-origin"])
            #expect(again.text == "<p>account of s=1</p>")
            #expect(again.header("cache-status")?.contains("hit") == true, "\(again.headers)")
        }
        // A page of another site reading it (credentials omitted, or not) is not given it.
        let crossSite = try await Curl.run(
            account, proxy: larder.proxyURL, arguments: ["-H", "Sec-Fetch-Site: cross-site", "-H", "Origin: https://evil.example"])
        #expect(crossSite.text == "<p>account of nobody</p>", "\(crossSite.headers)")
        #expect(origin.requestCount("/account.html") == 2)
        let oldBrowser = try await Curl.run(account, proxy: larder.proxyURL, arguments: ["-H", "Origin: https://evil.example"])
        #expect(!oldBrowser.text.contains("s=1"), "\(oldBrowser.headers)")
        await entriesStored(in: larder, count: 2)

        try await origin.stop()
        let offlineOwn = try await Curl.run(account, proxy: larder.proxyURL, arguments: ["-H", "Sec-Fetch-Site: none"])
        #expect(offlineOwn.text == "<p>account of s=1</p>")
        let offlineCrossSite = try await Curl.run(account, proxy: larder.proxyURL, arguments: ["-H", "Sec-Fetch-Site: cross-site"])
        #expect(!offlineCrossSite.text.contains("s=1"), "\(offlineCrossSite.status) \(offlineCrossSite.text)")
    }

    /// A page that reads `api` with `fetch` and reports what it read, or why it could not.
    static func reader(of api: String) -> String {
        """
        <!doctype html><title>reader</title><script>
        fetch(\(String(reflecting: api)))
          .then(r => r.text())
          .then(t => { window.__report = { done: true, read: t }; })
          .catch(e => { window.__report = { done: true, failed: String(e) }; });
        </script>
        """
    }

    @Test(
        "a declared answer fetched with the user's token: offline, a hostile page in Chromium cannot read it, the user's listed page can; curl without the token gets nothing",
        .enabled(if: Chromium.isInstalled, "chromium is not installed; scripts/setup installs it (apt package chromium)")
    )
    func declaredTokenAnswer() async throws {
        let api = try await TestOrigin.start()
        let token = "Bearer s3cret-token-\(UUID().uuidString)"
        api.setRoute(
            "/me/inbox",
            .dynamic { request in
                guard request.header("authorization") == token else {
                    return .text(
                        #"{"error":"unauthorized"}"#, status: 401, contentType: "application/json",
                        headers: [("Access-Control-Allow-Origin", "*")])
                }
                return .text(
                    #"{"inbox":"SECRET-MAIL"}"#, contentType: "application/json",
                    headers: [("Access-Control-Allow-Origin", "*"), ("Cache-Control", "no-store")])
            })
        let hostile = try await TestOrigin.start()
        hostile.setRoute("/evil.html", .text(Self.reader(of: api.url("/me/inbox")), contentType: "text/html"))
        let users = try await TestOrigin.start()
        users.setRoute("/app.html", .text(Self.reader(of: api.url("/me/inbox")), contentType: "text/html"))
        defer {
            Task {
                try? await hostile.stop()
                try? await users.stop()
            }
        }
        let userOrigin = String(users.url("/").dropLast())

        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/larder.json"
        try #"""
        {
          "requests": [
            {
              "name": "inbox",
              "url": "\#(api.url("/me/inbox"))",
              "headers": { "Authorization": "Bearer {{env:INBOX_TOKEN}}" },
              "pageOrigins": ["\#(userOrigin)"]
            }
          ]
        }
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let larder = try await LarderProcess(
            serve: ["--config", config], environment: ["INBOX_TOKEN": String(token.dropFirst("Bearer ".count))])
        defer { Task { await larder.tearDown() } }
        #expect(try await eventually { try await DeclaredRequestTests.declared(larder).first?["state"] as? String == "fresh" })
        #expect(api.requestCount("/me/inbox") == 1)

        // Online, the hostile page's own request goes to the origin and is not kept.
        let online = try await Chromium.report(hostile.url("/evil.html"), proxy: larder.proxyURL)
        #expect((online["read"] as? String)?.contains("unauthorized") == true, "\(online)")

        try await api.stop()
        let evil = try await Chromium.report(hostile.url("/evil.html"), proxy: larder.proxyURL)
        #expect(evil["done"] as? Bool == true, "\(evil)")
        #expect(!"\(evil)".contains("SECRET-MAIL"), "the hostile page read the user's data: \(evil)")
        let own = try await Chromium.report(users.url("/app.html"), proxy: larder.proxyURL)
        #expect(own["read"] as? String == #"{"inbox":"SECRET-MAIL"}"#, "the user's listed page: \(own)")

        let anonymous = try await Curl.run(api.url("/me/inbox"), proxy: larder.proxyURL)
        #expect(!anonymous.text.contains("SECRET-MAIL"), "\(anonymous.status) \(anonymous.headers)")
        #expect(anonymous.status >= 500)
        let wrongToken = try await Curl.run(api.url("/me/inbox"), proxy: larder.proxyURL, arguments: ["-H", "Authorization: Bearer guess"])
        #expect(!wrongToken.text.contains("SECRET-MAIL"))
        let withToken = try await Curl.run(
            api.url("/me/inbox"), proxy: larder.proxyURL,
            arguments: ["-H", "Authorization: \(token)", "-H", "Origin: https://elsewhere.example"])
        #expect(withToken.text == #"{"inbox":"SECRET-MAIL"}"#, "the token's holder: \(withToken.headers)")
        #expect(withToken.header("access-control-allow-origin") == "https://elsewhere.example", "a stored * is given as the asker's origin")
    }
}

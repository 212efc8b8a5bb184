import Foundation
import LarderHTTP
import LarderTestSupport

/// The single-page app of Tests/Fixtures/spa (see its README), served by three origins on
/// 127.0.0.1: the app, an API on another port (a second origin on the same host), and a
/// WebSocket echo server on a third (not 443).
final class SinglePageApp: Sendable {
    let app: TestOrigin
    let api: TestOrigin
    let sockets: WebSocketEchoOrigin

    private init(app: TestOrigin, api: TestOrigin, sockets: WebSocketEchoOrigin) {
        self.app = app
        self.api = api
        self.sockets = sockets
    }

    /// Starts the three origins serving deploy `v1`.
    static func start() async throws -> SinglePageApp {
        let app = try await TestOrigin.start()
        let api = try await TestOrigin.start()
        let sockets = try await WebSocketEchoOrigin.start()
        let fixture = SinglePageApp(app: app, api: api, sockets: sockets)
        try fixture.deploy("v1")
        return fixture
    }

    /// The app's page (no `.html`).
    var pageURL: String { self.app.url("/") }

    /// Serves deploy `version`: new chunk names, a new shell and API answers naming it; with
    /// `hangFor`, every HTTP answer of both origins waits that long before its head (a hung origin).
    func deploy(_ version: String, hangFor hang: Duration? = nil) throws {
        let faults: [TestFault] = hang.map { [.delayHead($0)] } ?? []
        let main = "main.\(Self.hash(version + "main")).js"
        let settings = "settings.\(Self.hash(version + "settings")).js"
        let values = [
            "DEPLOY": version, "MAIN": main, "SETTINGS": settings, "API_ORIGIN": self.api.baseURL,
            "WS_URL": "ws://127.0.0.1:\(self.sockets.port)/live",
        ]
        let shell = try Self.file("shell.html", values)
        let appOrigin = self.app.baseURL
        self.app.setRoute(
            "/",
            .dynamic { _ in
                // A new token on every load, as a server's XSRF protection hands out.
                .text(
                    shell, contentType: "text/html",
                    headers: [
                        ("Cache-Control", "no-cache"), ("ETag", "\"\(version)\""),
                        ("Set-Cookie", "_xsrf=\(UUID().uuidString); Path=/; SameSite=Lax"),
                    ], faults: faults)
            })
        self.app.setRoute(
            "/theme.css",
            .text(
                try Self.file("theme.css", values), contentType: "text/css", headers: [("Cache-Control", "no-cache"), ("ETag", "\"t\"")],
                faults: faults))
        let immutable = [(name: "Cache-Control", value: "public, max-age=31536000, immutable")]
        self.app.setRoute(
            "/assets/" + main,
            .text(try Self.file("assets/main.js", values), contentType: "text/javascript", headers: immutable, faults: faults))
        self.app.setRoute(
            "/assets/" + settings,
            .text(try Self.file("assets/settings.js", values), contentType: "text/javascript", headers: immutable, faults: faults))
        self.app.setRoute(
            "/api/settings",
            .text(
                #"{"user": "ada", "theme": "dark", "deploy": "\#(version)"}"#, contentType: "application/json",
                headers: [("Cache-Control", "private, no-cache")], faults: faults))
        self.app.setRoute(
            "/api/save",
            .dynamic { request in
                // Tornado's check: the X-XSRFToken header must equal the _xsrf cookie.
                let cookie = request.header("cookie")?.split(separator: ";").lazy
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { $0.hasPrefix("_xsrf=") }?.dropFirst("_xsrf=".count)
                guard request.method == "POST", let cookie, !cookie.isEmpty, request.header("x-xsrftoken") == String(cookie) else {
                    return .text(
                        #"{"error": "'_xsrf' argument missing from POST"}"#, status: 403, contentType: "application/json", faults: faults)
                }
                return .text(#"{"saved": true}"#, contentType: "application/json", faults: faults)
            })
        self.api.setRoute(
            "/api/feed",
            .text(
                #"{"items": ["today"], "deploy": "\#(version)"}"#, contentType: "application/json",
                headers: [("Access-Control-Allow-Origin", appOrigin)], faults: faults))
    }

    /// Stops both HTTP origins (connections refused) and the WebSocket server.
    func stop() async throws {
        try await self.app.stop()
        try await self.api.stop()
    }

    /// Starts both HTTP origins again on their ports.
    func restart() async throws {
        try await self.app.restart()
        try await self.api.restart()
    }

    /// Stops everything for good.
    func tearDown() async {
        try? await self.app.stop()
        try? await self.api.stop()
        try? await self.sockets.stop()
    }

    private static func file(_ name: String, _ values: [String: String]) throws -> String {
        let url = LarderProcess.packageRoot.appendingPathComponent("Tests/Fixtures/spa/" + name)
        var text = try String(contentsOf: url, encoding: .utf8)
        for (key, value) in values {
            text = text.replacingOccurrences(of: "{{\(key)}}", with: value)
        }
        return text
    }

    /// A short stable content-hash-like name part.
    private static func hash(_ text: String) -> String {
        var value: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            value = (value ^ UInt32(byte)) &* 16_777_619
        }
        return String(value, radix: 16)
    }
}

extension Chromium {
    /// Loads `url` in a fresh profile through `proxy` and returns what the page put in
    /// `window.__report` (Tests/Fixtures/chromium-report.py), once it says `done` or `timeout` passed.
    /// With `profile`, the profile is that folder, kept from one load to the next.
    static func report(_ url: String, proxy: String, profile: String? = nil, timeout: Duration = .seconds(60)) async throws
        -> [String: Any]
    {
        guard let path = Self.path else { throw E2EError("chromium is not installed") }
        let home = LarderProcess.temporaryDirectory("chromium-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", LarderProcess.packageRoot.appendingPathComponent("Tests/Fixtures/chromium-report.py").path, path,
            profile ?? home + "/profile", proxy, url, String(Int(timeout.seconds)),
        ]
        // The driver stops Chromium itself; the extra time only bounds a driver that hangs.
        let result = try await Chromium.run(process, home: home, timeout: timeout + .seconds(60))
        guard result.exitCode == 0, let report = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw E2EError("chromium-report.py failed (\(result.exitCode)): \(result.stderr)")
        }
        return report
    }
}

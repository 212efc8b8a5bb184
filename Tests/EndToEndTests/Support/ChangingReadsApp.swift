import Foundation
import LarderTestSupport
import Synchronization

/// The app of Tests/Fixtures/reads (see its README) on one origin on 127.0.0.1: a dashboard whose
/// reads carry the clock and a browser's multipart boundary, and an admin page behind a login
/// cookie sent `no-store`. Every answer names how many of its kind the origin gave, so a test
/// tells the origin's answer from a stored one.
final class ChangingReadsApp: Sendable {
    let origin: TestOrigin
    /// The session cookie `/login` sets and `/admin` asks for.
    static let session = "ada-session-7f3e"
    private let served = Mutex([String: Int]())

    private init(origin: TestOrigin) {
        self.origin = origin
    }

    static func start() async throws -> ChangingReadsApp {
        let app = ChangingReadsApp(origin: try await TestOrigin.start())
        try app.serve()
        return app
    }

    func url(_ path: String) -> String { self.origin.url(path) }

    /// How many answers of `kind` (`metrics`, `chart`, `admin`) the origin gave.
    func count(_ kind: String) -> Int { self.served.withLock { $0[kind] ?? 0 } }

    private func next(_ kind: String) -> Int {
        self.served.withLock {
            $0[kind, default: 0] += 1
            return $0[kind]!
        }
    }

    private func serve() throws {
        let dashboard = try Self.file("dashboard.html")
        self.origin.setRoute(
            "/", .text(dashboard, contentType: "text/html", headers: [("Cache-Control", "no-cache"), ("ETag", "\"d1\"")]))
        self.origin.setRoute(
            "/favicon.ico", .text("", contentType: "image/x-icon", headers: [("Cache-Control", "max-age=86400")]))
        self.origin.setRoute(
            "/api/metrics",
            .dynamic { request in
                let body = String(decoding: request.body, as: UTF8.self)
                guard request.method == "POST", body.contains(#""end_time_ms""#) else {
                    return .text(#"{"error":"bad request"}"#, status: 400, contentType: "application/json")
                }
                return .text(#"{"series":"cpu","answer":\#(self.next("metrics"))}"#, contentType: "application/json")
            })
        self.origin.setRoute(
            "/api/chart",
            .dynamic { request in
                let body = String(decoding: request.body, as: UTF8.self)
                guard request.method == "POST", request.header("content-type")?.hasPrefix("multipart/form-data; boundary=") == true,
                    body.contains("name=\"chart\"\r\n\r\nload\r\n")
                else {
                    return .text(#"{"error":"bad request"}"#, status: 400, contentType: "application/json")
                }
                return .text(#"{"points":[3,1,4],"answer":\#(self.next("chart"))}"#, contentType: "application/json")
            })
        self.origin.setRoute(
            "/login",
            .text(
                try Self.file("login.html"), contentType: "text/html",
                headers: [
                    ("Cache-Control", "no-store"),
                    ("Set-Cookie", "session=\(Self.session); Max-Age=3600; Path=/; HttpOnly; SameSite=Lax"),
                ]))
        let admin = try Self.file("admin.html")
        self.origin.setRoute(
            "/admin",
            .dynamic { request in
                let cookies = request.header("cookie")?.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
                guard cookies.contains("session=\(Self.session)") else {
                    return .text("Sign in first.", status: 403, contentType: "text/plain", headers: [("Cache-Control", "no-store")])
                }
                let page = admin.replacingOccurrences(of: "{{USER}}", with: "ada (answer \(self.next("admin")))")
                return .text(
                    page, contentType: "text/html",
                    headers: [("Cache-Control", "max-age=0, no-cache, no-store, must-revalidate, private")])
            })
    }

    private static func file(_ name: String) throws -> String {
        try String(contentsOf: LarderProcess.packageRoot.appendingPathComponent("Tests/Fixtures/reads/" + name), encoding: .utf8)
    }
}

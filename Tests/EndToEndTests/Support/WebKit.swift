import Foundation
import LarderTestSupport

/// A WebKitGTK webview (Debian's `gir1.2-webkit2-4.1`, the Linux sibling of WKWebView), driven by
/// Tests/Fixtures/webkit-report.py with Debian's python3 (`python3-gi`) on a virtual display
/// (`xvfb-run`, package `xvfb`); scripts/setup installs all three.
enum WebKit {
    /// Debian's interpreter: python3-gi is installed for it, not for another python3 on PATH.
    private static let python = "/usr/bin/python3"
    private static let xvfbRun = "/usr/bin/xvfb-run"

    /// Whether the driver can run: xvfb-run exists and python3 imports WebKit2 4.1 and Gtk 3.
    static let isInstalled: Bool = {
        guard FileManager.default.isExecutableFile(atPath: Self.xvfbRun), FileManager.default.isExecutableFile(atPath: Self.python)
        else { return false }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [
            "-c", "import gi; gi.require_version('Gtk', '3.0'); gi.require_version('WebKit2', '4.1'); from gi.repository import WebKit2",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Loads `url` in a fresh webview (ephemeral website data, its own HOME) whose every request,
    /// loopback included, goes through `proxy`, and returns what `report` (JavaScript; by default
    /// the page's `window.__report`) gave once it says `done` or `timeout` passed.
    /// With `trustedCA`, a certificate that chains to that PEM CA and names its host is accepted
    /// for that host (webkit-report.py says how); TLS checks are never turned off. With
    /// `profile`, website data (cookies included) is kept in that folder between loads, as a
    /// user's browser keeps it.
    static func report(
        _ url: String,
        proxy: String,
        trustedCA: String? = nil,
        report: String? = nil,
        profile: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> [String: Any] {
        let home = LarderProcess.temporaryDirectory("webkit-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let seconds = Int(timeout.seconds)
        var driver = [Self.python, LarderProcess.packageRoot.appendingPathComponent("Tests/Fixtures/webkit-report.py").path]
        if let trustedCA { driver += ["--trust", trustedCA] }
        if let report { driver += ["--report", report] }
        if let profile { driver += ["--data-dir", profile] }
        let process = ChildProcess()
        // `timeout` kills its whole process group (xvfb-run, Xvfb, the driver and WebKit's own
        // processes) if the driver hangs; the driver stops by itself at `timeout`.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["-s", "KILL", String(seconds + 30), Self.xvfbRun, "-a"] + driver + [proxy, url, String(seconds)]
        let result = try await Chromium.run(process, home: home, timeout: timeout + .seconds(60))
        guard result.exitCode == 0, let report = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw E2EError("webkit-report.py failed (\(result.exitCode)): \(result.stderr)")
        }
        return report
    }
}

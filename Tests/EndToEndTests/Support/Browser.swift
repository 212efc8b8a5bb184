import Testing

/// A browser engine the end-to-end tests load pages in through Larder: headless Chromium, or a
/// WebKitGTK webview (what WKWebView is on Apple platforms), each in a fresh profile per load.
enum Browser: String, Sendable, CustomTestStringConvertible {
    case chromium = "Chromium"
    case webKit = "WebKitGTK"

    var testDescription: String { self.rawValue }

    /// Loads `url` through `proxy` and returns what the page put in `window.__report`, once it
    /// says `done` or `timeout` passed (Chromium.report, WebKit.report). With `profile`, the
    /// browser keeps its data (cookies included) in that folder from one load to the next.
    func report(_ url: String, proxy: String, profile: String? = nil, timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        switch self {
        case .chromium: try await Chromium.report(url, proxy: proxy, profile: profile, timeout: timeout)
        case .webKit: try await WebKit.report(url, proxy: proxy, profile: profile, timeout: timeout)
        }
    }
}

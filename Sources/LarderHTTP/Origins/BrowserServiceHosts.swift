/// The hosts browsers reach on their own, for no page: their update, component, safe-browsing,
/// account, push, captive-portal, certificate-status and telemetry services (Chromium and
/// Chrome, Edge, Firefox, WebKit's GNOME Web and Safari). A request to one of them without a
/// `Referer` is the browser's own, whatever else it carries (``AppOrigins``): Chromium's updater
/// sends no Fetch Metadata, so nothing else tells it from curl.
///
/// A pattern is a host name, compared whole and without regard to case, in which one `*` stands
/// for any run of characters, dots included: `*.gvt1.com` is every name under `gvt1.com` (not
/// `gvt1.com` itself), `clients*.google.com` is `clients1.google.com` to `clients6.google.com`,
/// `ocsp.*` any certificate authority's status responder.
public struct BrowserServiceHosts: Sendable, Hashable {
    /// The patterns, as given.
    public let patterns: [String]

    /// A list of `patterns`.
    public init(patterns: [String]) {
        self.patterns = patterns.map { $0.lowercased() }
    }

    /// The services of the browsers Larder is used with.
    public static let `default` = BrowserServiceHosts(patterns: [
        // Chromium and Chrome: updates and components, variations and network time, safe browsing,
        // hints, autofill, accounts and sync, push, connectivity checks, error reports.
        "update.googleapis.com", "*.gvt1.com", "*.gvt2.com", "dl.google.com", "edgedl.me.gvt1.com", "tools.google.com",
        "clients*.google.com", "*.clients.google.com", "clientservices.googleapis.com", "safebrowsing.googleapis.com",
        "safebrowsing.google.com", "safebrowsingohttpgateway.googleapis.com", "google-ohttp-relay-safebrowsing.fastly-edge.com",
        "sb-ssl.google.com", "optimizationguide-pa.googleapis.com", "content-autofill.googleapis.com", "accounts.google.com",
        "chromesyncpasswords-pa.googleapis.com", "passwordsleakcheck-pa.googleapis.com", "chromewebstore.googleapis.com",
        "android.googleapis.com", "mtalk.google.com", "connectivitycheck.gstatic.com", "crashpad.chromium.org",
        // Edge.
        "edge.microsoft.com", "*.smartscreen.microsoft.com", "msedge.api.cdp.microsoft.com", "config.edge.skype.com",
        // Firefox: remote settings, sync and push, tracking protection lists, updates, add-on
        // checks, telemetry, the captive-portal check, accounts, new-tab stories.
        "*.services.mozilla.com", "detectportal.firefox.com", "aus5.mozilla.org", "incoming.telemetry.mozilla.org",
        "firefox-settings-attachments.cdn.mozilla.net", "content-signature-2.cdn.mozilla.net", "tracking-protection.cdn.mozilla.net",
        "normandy.cdn.mozilla.net", "download.cdn.mozilla.net", "versioncheck-bg.addons.mozilla.org", "services.addons.mozilla.org",
        "accounts.firefox.com", "*.accounts.firefox.com", "spocs.getpocket.com",
        // WebKit: GNOME Web's and the desktop's connectivity check and content filters; Safari's
        // safe browsing proxy, captive-portal check, updates and telemetry.
        "nmcheck.gnome.org", "easylist-downloads.adblockplus.org", "*.safebrowsing.apple", "captive.apple.com", "mesu.apple.com",
        "xp.apple.com", "gateway.icloud.com",
        // Certificate status, which every browser asks of the authority that signed a site's certificate.
        "ocsp.*", "*.o.lencr.org",
    ])

    /// Whether `host` is one of the services.
    public func contains(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return self.patterns.contains { Self.matches(name, pattern: $0) }
    }

    /// Whether the host of `origin` (`scheme://host[:port]`) is one of the services.
    public func contains(origin: String) -> Bool {
        guard let url = try? HTTPURL(parsing: origin) else { return false }
        return self.contains(host: url.host)
    }

    /// `name` against one pattern: whole, one `*` for any run of characters.
    private static func matches(_ name: String, pattern: String) -> Bool {
        guard let star = pattern.firstIndex(of: "*") else { return name == pattern }
        let prefix = pattern[..<star]
        let suffix = pattern[pattern.index(after: star)...]
        // The two ends may not overlap: `a*a` is not `a`.
        return name.count >= prefix.count + suffix.count && name.hasPrefix(prefix) && name.hasSuffix(suffix)
    }
}

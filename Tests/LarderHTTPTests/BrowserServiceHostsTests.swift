import LarderHTTP
import Testing

/// The hosts browsers reach on their own (docs/SERVING.md, "The browser's own requests").
@Suite("The browsers' own services, by host")
struct BrowserServiceHostsTests {
    @Test("which hosts are the browsers' services: names whole, one * for any run of characters, case and a final dot ignored")
    func hosts() {
        let hosts = BrowserServiceHosts.default
        // (host, expected)
        let cases: [(String, Bool)] = [
            ("update.googleapis.com", true),
            ("UPDATE.googleapis.com.", true),
            ("redirector.gvt1.com", true),
            ("r3---sn-4g5e6nsz.gvt1.com", true),
            ("gvt1.com", false),
            ("clients2.google.com", true),
            ("clients4.google.com", true),
            ("android.clients.google.com", true),
            ("safebrowsing.googleapis.com", true),
            ("optimizationguide-pa.googleapis.com", true),
            ("content-autofill.googleapis.com", true),
            ("accounts.google.com", true),
            ("firefox.settings.services.mozilla.com", true),
            ("push.services.mozilla.com", true),
            ("detectportal.firefox.com", true),
            ("aus5.mozilla.org", true),
            ("incoming.telemetry.mozilla.org", true),
            ("captive.apple.com", true),
            ("nmcheck.gnome.org", true),
            ("ocsp.digicert.com", true),
            ("r11.o.lencr.org", true),
            // An app's own APIs and assets on the same companies' hosts are not the browser's.
            ("www.googleapis.com", false),
            ("fonts.gstatic.com", false),
            ("maps.google.com", false),
            ("developer.mozilla.org", false),
            ("www.apple.com", false),
            ("app.example", false),
            ("services.mozilla.com.evil.example", false),
            ("myclients1.google.com", false),
        ]
        for (host, expected) in cases {
            #expect(hosts.contains(host: host) == expected, "\(host)")
        }
    }

    @Test("an origin's host, with any scheme and port")
    func origins() {
        let hosts = BrowserServiceHosts.default
        #expect(hosts.contains(origin: "http://update.googleapis.com"))
        #expect(hosts.contains(origin: "https://clients1.google.com:443"))
        #expect(!hosts.contains(origin: "http://127.0.0.1:8080"))
        #expect(!hosts.contains(origin: "not an origin"))
    }
}

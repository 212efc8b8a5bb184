import LarderHTTP
import Testing

/// Which requests are the app's and which the browser's own (docs/SERVING.md, "The browser's own requests").
@Suite("The app's origins and the browser's own requests")
struct AppOriginsTests {
    @Test("who a request is for, by its Referer, Fetch Metadata and whether an app's request went to its origin")
    func initiator() {
        var known = AppOrigins()
        _ = known.classify(origin: "https://api.app.test", referer: "https://www.app.test/play", fetchSite: "same-site", fetchMode: "cors")
        // (name, origin, referer, Sec-Fetch-Site, Sec-Fetch-Mode, expected)
        let cases: [(String, String, String?, String?, String?, RequestInitiator)] = [
            ("a page's request: it has a Referer", "https://cdn.test", "https://www.app.test/", "cross-site", "no-cors", .app),
            ("a navigation the user typed", "https://new.test", nil, "none", "navigate", .app),
            ("a navigation, mode in capitals", "https://new.test", nil, "none", "NAVIGATE", .app),
            ("curl, a script: no Fetch Metadata", "https://new.test", nil, nil, nil, .app),
            ("no Referer, to an origin a page loaded from", "https://api.app.test", nil, "none", "no-cors", .app),
            ("no Referer, to the page's own origin (learned from the Referer)", "https://www.app.test", nil, "none", "cors", .app),
            ("Chromium's update service", "https://update.googleapis.com", nil, "none", "no-cors", .browser),
            ("Chromium's account service", "https://accounts.google.com", nil, "none", "cors", .browser),
            ("an empty Referer is no Referer", "https://update.googleapis.com", "", "none", "no-cors", .browser),
        ]
        for (name, origin, referer, site, mode, expected) in cases {
            #expect(known.initiator(origin: origin, referer: referer, fetchSite: site, fetchMode: mode) == expected, "\(name)")
        }
    }

    @Test("only the app's requests teach origins: the browser's own never make its hosts the app's")
    func learning() {
        var origins = AppOrigins()
        #expect(origins.classify(origin: "https://update.test", referer: nil, fetchSite: "none", fetchMode: "no-cors") == .browser)
        #expect(origins.classify(origin: "https://update.test", referer: nil, fetchSite: "none", fetchMode: "no-cors") == .browser)
        #expect(!origins.contains("https://update.test"))
        #expect(origins.classify(origin: "https://app.test", referer: nil, fetchSite: "none", fetchMode: "navigate") == .app)
        #expect(origins.contains("https://app.test"))
        #expect(origins.classify(origin: "https://app.test", referer: nil, fetchSite: "none", fetchMode: "no-cors") == .app)
    }

    @Test("bounded: past the capacity the origin named longest ago is forgotten")
    func bounded() {
        var origins = AppOrigins(capacity: 2)
        for name in ["a", "b"] {
            _ = origins.classify(origin: "https://\(name).test", referer: nil, fetchSite: nil, fetchMode: nil)
        }
        // a named again: b is now the oldest.
        _ = origins.classify(origin: "https://a.test", referer: nil, fetchSite: nil, fetchMode: nil)
        _ = origins.classify(origin: "https://c.test", referer: nil, fetchSite: nil, fetchMode: nil)
        #expect(origins.all.sorted() == ["https://a.test", "https://c.test"])
    }
}

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

    @Test("the browsers' own services are the browser's whatever the request carries, unless a page asked or the user opened them")
    func browserHosts() {
        var origins = AppOrigins()
        // (name, origin, referer, Sec-Fetch-Site, Sec-Fetch-Mode, method, expected)
        let cases: [(String, String, String?, String?, String?, String, RequestInitiator)] = [
            ("Chromium's updater: a POST, no Fetch Metadata", "http://update.googleapis.com", nil, nil, nil, "POST", .browser),
            ("a component download, no Fetch Metadata", "http://redirector.gvt1.com", nil, nil, nil, "GET", .browser),
            ("Firefox's remote settings", "https://firefox.settings.services.mozilla.com", nil, nil, nil, "GET", .browser),
            (
                "a page's sign-in button loading from accounts.google.com", "https://accounts.google.com", "https://app.test/",
                "cross-site",
                "no-cors", "GET", .app
            ),
            ("the user opening accounts.google.com", "https://accounts.google.com", nil, "none", "navigate", "GET", .app),
            ("curl or an app's native code to its own server", "http://api.app.test", nil, nil, nil, "POST", .app),
        ]
        for (name, origin, referer, site, mode, method, expected) in cases {
            #expect(
                origins.classify(origin: origin, referer: referer, fetchSite: site, fetchMode: mode, method: method) == expected, "\(name)")
        }
        #expect(!origins.contains("https://accounts.google.com"), "a browser's service is never kept as the app's")
        #expect(!origins.contains("http://update.googleapis.com"))
        #expect(origins.contains("http://api.app.test"))
        #expect(origins.contains("https://app.test"))
        #expect(
            origins.initiator(origin: "https://accounts.google.com", referer: nil, fetchSite: "none", fetchMode: "cors") == .browser,
            "a page that asked once does not make the browser's later requests the app's")
    }

    @Test("the marks of background work: a POST with Sec-Fetch-Site none and no Referer is the browser's, even to an app's origin")
    func backgroundWork() {
        var origins = AppOrigins()
        _ = origins.classify(origin: "https://app.test", referer: nil, fetchSite: "none", fetchMode: "navigate")
        // (name, referer, Sec-Fetch-Site, Sec-Fetch-Mode, method, expected)
        let cases: [(String, String?, String?, String?, String, RequestInitiator)] = [
            ("a background POST", nil, "none", "no-cors", "POST", .browser),
            ("the same, Sec-Fetch-Site in capitals", nil, "None", "no-cors", "POST", .browser),
            ("a page's POST: it has a Referer", "https://app.test/", "same-origin", "cors", "POST", .app),
            ("a form the user submits: a navigation", nil, "none", "navigate", "POST", .app),
            ("a POST without Fetch Metadata (curl)", nil, nil, nil, "POST", .app),
            ("a GET with Sec-Fetch-Site none to an app's origin", nil, "none", "no-cors", "GET", .app),
        ]
        for (name, referer, site, mode, method, expected) in cases {
            #expect(
                origins.initiator(origin: "https://app.test", referer: referer, fetchSite: site, fetchMode: mode, method: method)
                    == expected,
                "\(name)")
        }
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

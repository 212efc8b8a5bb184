import LarderHTTP
import Testing

/// RFC 9111 section 4.4: what a successful unsafe request invalidates.
struct UnsafeMethodInvalidationTests {
    @Test(arguments: [(200, true), (204, true), (303, true), (399, true), (199, false), (400, false), (404, false), (500, false)])
    func onlyANonErrorStatusInvalidates(status: Int, invalidates: Bool) {
        #expect(UnsafeMethodInvalidation.invalidates(status: status) == invalidates)
    }

    @Test(arguments: [
        // The target alone.
        ([], [], ["https://a.example/items/1"]),
        // Relative and absolute references of the same origin, in order, Location first.
        (
            ["/items/2"], ["https://a.example:443/items/1?v=2"],
            ["https://a.example/items/1", "https://a.example/items/2", "https://a.example/items/1?v=2"]
        ),
        // Another scheme, host or port: another origin's responses are not this answer's to invalidate.
        (
            ["http://a.example/items/2", "https://b.example/items/2", "https://a.example:8443/items/2"], ["mailto:x@a.example"],
            ["https://a.example/items/1"]
        ),
    ])
    func targetsAreTheURIAndSameOriginLocations(location: [String], contentLocation: [String], expected: [String]) throws {
        let url = try HTTPURL(parsing: "https://a.example/items/1")
        let targets = UnsafeMethodInvalidation.targets(of: url, location: location, contentLocation: contentLocation)
        #expect(targets.map(\.absoluteString) == expected)
    }
}

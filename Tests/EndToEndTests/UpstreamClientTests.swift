import Foundation
import LarderTestSupport
import Testing

/// `--upstream` picks the HTTP client that fetches from origins (issue 44): either client answers,
/// the status page and `larder status` name the one in use, and a name of no client is refused.
@Suite("End to end: choosing the upstream client")
struct UpstreamClientTests {
    /// The clients this build of `larder` has: nio always, curl unless built without the Curl trait.
    private static func linkedClients() async throws -> [String] {
        let probe = try await LarderCLI.run(["serve", "--upstream", "curl", "--port=-1"], timeout: .seconds(20))
        return probe.stderr.contains("has no libcurl") ? ["nio"] : ["curl", "nio"]
    }

    @Test("larder serve --upstream curl|nio fetches with that client, which /dev/offline and larder status name")
    func namedEverywhere() async throws {
        for client in try await Self.linkedClients() {
            try await withProxy(arguments: ["--upstream", client]) { larder, origin in
                origin.setRoute("/page", .text("fetched", headers: [("Cache-Control", "max-age=60")]))
                let miss = try await Curl.run(origin.url("/page"), proxy: larder.proxyURL)
                #expect(miss.status == 200)
                #expect(miss.text == "fetched")
                #expect(try await fetchesWithNIO(larder) == (client == "nio"))

                let page = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
                let expected = client == "nio" ? "fetching with nio (AsyncHTTPClient)" : "fetching with curl (libcurl)"
                #expect(page.text.contains(expected), "\(client): the page names it")

                let status = try await LarderCLI.run(
                    ["status", "--cache-dir", larder.cacheDirectory, "--proxy", larder.proxyURL], timeout: .seconds(30))
                #expect(status.exitCode == 0, "\(status.stderr)")
                #expect(status.stdout.contains(expected), "\(client): larder status names it: \(status.stdout)")
            }
        }
    }

    @Test("a name of no client, on the command line or in LARDER_UPSTREAM, is refused before anything starts")
    func unknownClientRefused() async throws {
        let option = try await LarderCLI.run(["serve", "--upstream", "wget", "--port", "0"], timeout: .seconds(20))
        #expect(option.exitCode != 0)
        #expect(option.stderr.contains("--upstream wget: not an upstream client; use curl or nio"), "\(option.stderr)")

        let variable = try await LarderCLI.run(
            ["precache", "/dev/null"], environment: ["LARDER_UPSTREAM": "wget"], timeout: .seconds(20))
        #expect(variable.exitCode != 0)
        #expect(variable.stderr.contains("LARDER_UPSTREAM wget: not an upstream client"), "\(variable.stderr)")
    }
}

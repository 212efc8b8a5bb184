import ArgumentParser
import Foundation
import LarderUpstream
import LarderUpstreamClient

/// `--upstream`, shared by the commands that fetch from upstream.
struct UpstreamClientOption: ParsableArguments {
    @Option(
        name: .customLong("upstream"),
        help: ArgumentHelp(
            "The HTTP client that fetches from origins: curl (libcurl) or nio (AsyncHTTPClient on SwiftNIO). Default: LARDER_UPSTREAM, else curl where this build has libcurl, else nio.",
            valueName: "client"
        )
    )
    var name: String?

    func validate() throws {
        _ = try self.resolve()
    }

    /// The client in force: this option, else `LARDER_UPSTREAM`, else the build's preferred one.
    ///
    /// - Throws: `ValidationError` naming the option or variable whose value is no client of this build.
    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> UpstreamClient.Kind {
        do throws(UpstreamConfigurationError) {
            guard let name = self.name else { return try UpstreamClient.Kind.fromEnvironment(environment) }
            return try UpstreamClient.Kind(named: name, source: "--upstream")
        } catch {
            throw ValidationError("\(error.message).")
        }
    }
}

import ArgumentParser
import Foundation
import LarderHTTP
import Logging

/// `--upstream-proxy`, shared by the commands that fetch from upstream.
struct UpstreamProxyOption: ParsableArguments {
    @Option(
        name: .customLong("upstream-proxy"),
        help: ArgumentHelp(
            "A parent proxy for every upstream request (http://host:port or https://host:port), or none to go direct. Default: the config file's upstreamProxy, else http_proxy, https_proxy and no_proxy.",
            valueName: "url"
        )
    )
    var text: String?

    func validate() throws {
        _ = try self.choice()
    }

    /// The setting in force: this option, else the config file's `upstreamProxy`, else the
    /// environment's proxy variables.
    ///
    /// - Throws: `ValidationError` naming the option or variable whose value is not a proxy URL.
    func resolve(configured: UpstreamProxy.Choice?, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> UpstreamProxy
    {
        do {
            return try UpstreamProxy.resolve(choice: try self.choice() ?? configured, environment: environment)
        } catch {
            throw ValidationError("\(error); correct it, or pass --upstream-proxy none to go direct.")
        }
    }

    private func choice() throws -> UpstreamProxy.Choice? {
        guard let text = self.text else { return nil }
        do {
            return try UpstreamProxy.Choice(parsing: text)
        } catch {
            throw ValidationError("--upstream-proxy: \(error).")
        }
    }

    /// Logs the parents in use at `notice`, credentials hidden.
    static func log(_ proxy: UpstreamProxy, logger: Logger) {
        guard !proxy.isDirect else { return }
        logger.notice(
            "upstream requests go through a parent proxy",
            metadata: [
                "http": "\(proxy.http.map(\.description) ?? "direct")", "https": "\(proxy.https.map(\.description) ?? "direct")",
                "no_proxy": "\(proxy.noProxy.isEmpty ? "none" : "set")",
            ]
        )
    }
}

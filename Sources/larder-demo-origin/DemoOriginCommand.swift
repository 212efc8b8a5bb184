import ArgumentParser
import Foundation
import LarderTestSupport

/// `larder-demo-origin`: serves the demo site (or any folder) over HTTP(S) for trying Larder out.
@main
struct DemoOriginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "larder-demo-origin",
        abstract: "Serve a folder (the demo site by default) as a small web origin for trying Larder.",
        discussion: """
            HTML pages and offline.meta.json manifests are sent with Cache-Control: no-cache, everything \
            else with max-age=60. Stop with Ctrl-C.
            """
    )

    @Option(help: "The port to listen on, on 127.0.0.1.")
    var port: Int = 8000

    @Option(help: "The folder to serve.")
    var root: String = "Examples/site"

    @Flag(help: "Serve HTTPS with a throwaway test CA (its certificate path is printed).")
    var tls = false

    @Flag(help: "Also serve misbehaving routes under /faults/ (truncated, reset, slow, hung-up responses).")
    var faultRoutes = false

    func run() async throws {
        let rootURL = URL(fileURLWithPath: self.root).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: rootURL.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            Self.printError("larder-demo-origin: --root \(self.root): no such folder (looked in \(rootURL.path))")
            throw ExitCode(2)
        }
        guard (0...65535).contains(self.port) else {
            Self.printError("larder-demo-origin: --port \(self.port): not a port number (0-65535)")
            throw ExitCode(2)
        }

        let origin: TestOrigin
        do {
            origin = try await TestOrigin.start(tls: self.tls, port: self.port)
        } catch {
            Self.printError("larder-demo-origin: cannot listen on 127.0.0.1:\(self.port): \(error)")
            throw ExitCode(1)
        }
        origin.serveDirectory(rootURL.path, cacheControlForPath: Self.cacheControl(forPath:))
        if self.faultRoutes {
            FaultRoutes.install(on: origin)
        }
        Self.printLine("demo origin: \(origin.baseURL)/ (serving \(rootURL.path))")
        if let caPath = origin.caCertificatePath {
            Self.printLine("test CA certificate: \(caPath)")
        }
        if self.faultRoutes {
            Self.printLine("fault routes: \(origin.baseURL)/faults/")
        }

        let signalName = await TerminationSignal.wait()
        Self.printLine("demo origin: \(signalName), stopping")
        try await origin.stop()
    }

    /// Pages and manifests must be revalidated (a new deploy shows at once); assets may be reused briefly.
    @Sendable
    static func cacheControl(forPath path: String) -> String {
        path.hasSuffix(".html") || path.hasSuffix("offline.meta.json") ? "no-cache" : "max-age=60"
    }

    /// Writes a line to stdout unbuffered, so it shows at once when stdout is a pipe (scripts wait
    /// for the address line).
    static func printLine(_ message: String) {
        FileHandle.standardOutput.write(Data((message + "\n").utf8))
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

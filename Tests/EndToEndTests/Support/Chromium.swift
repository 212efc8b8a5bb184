import Foundation
import LarderHTTP
import LarderTestSupport

/// Headless Chromium (the Debian `chromium` package, which scripts/setup installs), driven from the
/// command line: `--dump-dom` to see what scripts did, `--screenshot` to see the page.
enum Chromium {
    /// The browser binary: `$CHROMIUM`, else the first of the usual paths that exists.
    static let path: String? = {
        if let path = ProcessInfo.processInfo.environment["CHROMIUM"], FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// Whether a browser is installed.
    static var isInstalled: Bool { Self.path != nil }

    /// What one browser run printed.
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String
    }

    /// Loads `url` in a fresh headless browser (its own profile and HOME, so nothing is cached
    /// between runs) that sends every request, loopback included, through `proxy`.
    /// With `trustedCA`, that PEM certificate is trusted in the profile's NSS database (as a user
    /// would with certutil), never `--ignore-certificate-errors`.
    static func run(
        _ url: String,
        proxy: String?,
        arguments: [String],
        trustedCA: String? = nil,
        timeout: Duration = .seconds(90)
    ) async throws -> Result {
        guard let path = Self.path else { throw E2EError("chromium is not installed") }
        let home = LarderProcess.temporaryDirectory("chromium-home")
        defer { try? FileManager.default.removeItem(atPath: home) }
        if let trustedCA {
            try await Self.trust(trustedCA, home: home)
        }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: path)
        var args = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1",
            "--user-data-dir=\(home)/profile",
        ]
        if let proxy {
            // `<-loopback>` removes Chromium's implicit bypass, so 127.0.0.1 origins go through the proxy too.
            // Chromium's own background requests (updates, safe browsing) go direct and fail: no noise in the proxy.
            args += ["--proxy-server=\(proxy)", "--proxy-bypass-list=<-loopback>;*.google.com;*.googleapis.com;*.gvt1.com"]
        }
        process.arguments = args + arguments + [url]
        return try await Self.run(process, home: home, timeout: timeout)
    }

    /// Runs `process` (Chromium, or a driver that starts a browser: WebKit.report's too) with
    /// `home` as HOME and no proxy variables, killed after `timeout`; what it printed. Never while
    /// another test changes the machine's network (``HostNetworkChanges``).
    static func run(_ process: ChildProcess, home: String, timeout: Duration) async throws -> Result {
        try await HostNetworkChanges.shared.duringBrowserRun {
            try await Self.runNow(process, home: home, timeout: timeout)
        }
    }

    private static func runNow(_ process: ChildProcess, home: String, timeout: Duration) async throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            environment.removeValue(forKey: name)
        }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(pid, SIGKILL)
        }
        async let stdout = onThread { out.fileHandleForReading.readDataToEndOfFile() }
        async let stderr = onThread { err.fileHandleForReading.readDataToEndOfFile() }
        let (outData, errData) = await (stdout, stderr)
        await onThread { process.waitUntilExit() }
        watchdog.cancel()
        return Result(
            exitCode: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self)
        )
    }

    /// Whether `certutil` (Debian's libnss3-tools) is installed.
    static var canTrustCertificates: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/certutil")
    }

    /// Creates `home/.pki/nssdb` and trusts `caPEM` in it for websites.
    private static func trust(_ caPEM: String, home: String) async throws {
        let database = home + "/.pki/nssdb"
        try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: true)
        for arguments in [
            ["-d", "sql:" + database, "-N", "--empty-password"],
            ["-d", "sql:" + database, "-A", "-t", "C,,", "-n", "larder", "-i", caPEM],
        ] {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/certutil")
            process.arguments = arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let message = await onThread { errors.fileHandleForReading.readDataToEndOfFile() }
            await onThread { process.waitUntilExit() }
            guard process.terminationStatus == 0 else {
                throw E2EError("certutil \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
            }
        }
    }

    /// `<package>/test-output/`, created if needed (git-ignored): where screenshots go.
    static var outputDirectory: String {
        let path = LarderProcess.packageRoot.appendingPathComponent("test-output").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

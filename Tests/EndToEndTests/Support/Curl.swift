import Foundation
import LarderTestSupport

/// What `curl` got.
struct CurlResult: Sendable {
    /// curl's exit status (0 on success, 18 for a truncated body, 35/60 for TLS failures...).
    var exitCode: Int32
    /// The final response's status, 0 when none arrived.
    var status: Int
    /// The final response's headers, names lower-cased.
    var headers: [String: [String]]
    /// The body bytes.
    var body: [UInt8]
    /// What curl printed on stderr.
    var stderr: String

    /// The first value of a header.
    func header(_ name: String) -> String? { self.headers[name.lowercased()]?.first }
    /// The body as UTF-8 text.
    var text: String { String(decoding: self.body, as: UTF8.self) }
}

/// Runs the system `curl`, as a user of the proxy would.
enum Curl {
    /// `curl -sS [-x proxy] ARGS URL`, body and headers captured to files.
    static func run(_ url: String, proxy: String?, arguments: [String] = [], timeout: Int = 60) async throws -> CurlResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let headersFile = directory.appendingPathComponent("headers").path
        let bodyFile = directory.appendingPathComponent("body").path
        var args = ["-sS", "--max-time", String(timeout), "-D", headersFile, "-o", bodyFile]
        if let proxy {
            args += ["-x", proxy]
        } else {
            args += ["--noproxy", "*"]
        }
        args += arguments + [url]
        let (exitCode, stderr) = try await self.execute(args)
        let headerText = (try? String(contentsOfFile: headersFile, encoding: .utf8)) ?? ""
        // With -D, every response (a CONNECT's 200 and the real one) is written: keep the last.
        let blocks = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        var status = 0
        var headers: [String: [String]] = [:]
        if let last = blocks.last {
            let lines = last.components(separatedBy: "\r\n")
            status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name, default: []].append(value)
            }
        }
        let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))).map { [UInt8]($0) } ?? []
        return CurlResult(exitCode: exitCode, status: status, headers: headers, body: body, stderr: stderr)
    }

    /// Runs curl with `arguments`, returning its exit status and stderr.
    static func execute(_ arguments: [String]) async throws -> (Int32, String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            environment.removeValue(forKey: name)
        }
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errorData = await onThread { errorPipe.fileHandleForReading.readDataToEndOfFile() }
        await onThread { process.waitUntilExit() }
        return (process.terminationStatus, String(decoding: errorData, as: UTF8.self))
    }
}

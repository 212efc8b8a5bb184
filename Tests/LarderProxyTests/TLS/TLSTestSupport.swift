import Foundation
import LarderTestSupport
import SwiftASN1
import Synchronization
import Testing
import X509

@testable import LarderProxy

/// A new empty directory for one test, deleted when this goes away.
final class TLSTestDirectory: Sendable {
    let path: String

    init() throws {
        self.path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("larder-tls-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: self.path)
    }

    /// `<path>/ca`.
    var caDirectory: String { self.path + "/ca" }
    /// `<path>/ca/ca.pem`.
    var certificatePath: String { self.caDirectory + "/ca.pem" }
    /// `<path>/ca/ca-key.pem`.
    var privateKeyPath: String { self.caDirectory + "/ca-key.pem" }

    /// Writes `contents` to `name` inside this directory and returns the path.
    func write(_ contents: String, to name: String) throws -> String {
        let path = self.path + "/" + name
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}

/// The permission bits of the file at `path`.
func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.posixPermissions] as? Int)
}

/// Runs `/usr/bin/openssl arguments` on a thread of its own (never blocking the cooperative pool) and returns its
/// exit status and combined output.
func runOpenSSL(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: (process.terminationStatus, String(decoding: output, as: UTF8.self)))
        }
        thread.start()
    }
}

/// Whether the extension `oid` of `certificate` is marked critical (nil when absent).
func isCritical(_ certificate: Certificate, _ oid: ASN1ObjectIdentifier) -> Bool? {
    certificate.extensions[oid: oid]?.critical
}

/// A time source tests can move.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date()) {
        self.current = Mutex(start)
    }

    var now: Date { self.current.withLock { $0 } }

    func advance(by interval: TimeInterval) {
        self.current.withLock { $0 += interval }
    }
}

/// The first common name in `name`.
func commonName(of name: DistinguishedName) -> String? {
    name.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }.flatMap { String($0.value) }
}

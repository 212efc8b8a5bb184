import Foundation
import LarderHTTP
import LarderTestSupport
import Testing

/// Runs `body` with a fresh test origin and a fresh `larder serve` in front of it; both are
/// stopped and the cache directory removed afterwards, whatever happens.
func withProxy<T>(
    arguments: [String] = [],
    tlsOrigin: Bool = false,
    _ body: (LarderProcess, TestOrigin) async throws -> T
) async throws -> T {
    let origin = try await TestOrigin.start(tls: tlsOrigin)
    let larder: LarderProcess
    do {
        larder = try await LarderProcess(serve: arguments)
    } catch {
        try? await origin.stop()
        throw error
    }
    do {
        let result = try await body(larder, origin)
        await larder.tearDown()
        try? await origin.stop()
        return result
    } catch {
        print("larder log:\n\(larder.log)")
        await larder.tearDown()
        try? await origin.stop()
        throw error
    }
}

/// Files under `directory` (recursively), as paths relative to it.
func filesUnder(_ directory: String) -> [String] {
    (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { path in
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory)
        return exists && !isDirectory.boolValue
    }
}

/// Waits (up to 10 s) until the proxy's index holds at least `count` entries: the proxy commits
/// what it stores just after the client has its answer, and a body file appears a moment before
/// its row is committed.
func entriesStored(in larder: LarderProcess, count: Int = 1) async {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if let report = try? await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil),
            let json = try? JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any],
            let store = json["store"] as? [String: Any], let entries = store["entries"] as? Int, entries >= count
        {
            return
        }
        try? await Task.sleep(for: .milliseconds(50))
    }
}

/// Files under `directory`, polled for up to 5 seconds until there are at least `count`: the proxy
/// commits what it stores just after the client has its answer.
func filesAppearing(under directory: String, count: Int = 1) async -> [String] {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        let files = filesUnder(directory)
        if files.count >= count { return files }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return filesUnder(directory)
}

/// Runs `body` with `larder serve ARGS`, stopped and its cache directory removed afterwards; its
/// log is printed when `body` fails.
func withLarder(_ arguments: [String] = [], _ body: (LarderProcess) async throws -> Void) async throws {
    let larder = try await LarderProcess(serve: arguments)
    do {
        try await body(larder)
    } catch {
        print("larder log:\n\(larder.log)")
        await larder.tearDown()
        throw error
    }
    await larder.tearDown()
}

/// Whether `larder` fetches with the SwiftNIO upstream client, as its /dev/offline.json says
/// (`LARDER_UPSTREAM=nio`, or a build without libcurl): where the two clients differ
/// (docs/EMBEDDING.md, "Two upstream clients, one contract"), a test expects what the one in use does.
func fetchesWithNIO(_ larder: LarderProcess) async throws -> Bool {
    let report = try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(report.body)) as? [String: Any])
    let client = try #require(json["upstreamClient"] as? String, "the report names the upstream client")
    return client.hasPrefix("nio")
}

import Foundation
import LarderTestSupport
import Testing

/// The embedding example (Examples/EmbeddedLarder) run as built: Larder started from code on a free
/// port, fetched through, precached into and stopped, all in one process.
@Suite("Embedding example")
struct EmbeddingTests {
    /// The example's binary, beside `larder` in this build.
    static let binary = URL(fileURLWithPath: LarderProcess.binary).deletingLastPathComponent().appendingPathComponent("EmbeddedLarder").path

    @Test("the example serves its own origin through an embedded Larder: a miss, a hit, a game precached, served offline, stopped")
    func runsAgainstItsOwnOrigin() async throws {
        let run = try await LarderCLI.run([], executable: Self.binary, timeout: .seconds(120))
        let output = run.stdout + run.stderr
        #expect(run.exitCode == 0, "\(output)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("listening on 127.0.0.1:") == true, "\(output)")
        #expect(lines.contains { $0.hasPrefix("first fetch: 200, ") && $0.contains("fwd=uri-miss") && $0.contains("stored") }, "\(output)")
        #expect(lines.contains { $0.hasPrefix("second fetch: 200, ") && $0.contains("Cache-Status: larder; hit") }, "\(output)")
        #expect(lines.contains("precache: flipart ready, 4 of 4 files"), "\(output)")
        #expect(lines.contains { $0.hasPrefix("offline fetch of a precached file: 200, ") }, "\(output)")
        #expect(
            lines.contains { $0.hasPrefix("status: http://127.0.0.1:") && $0.contains("answers: ") && $0.contains("hit ") }, "\(output)")
        #expect(lines.last == "stopped", "\(output)")
        let cache = try #require(lines.first?.components(separatedBy: "(cache: ").last?.dropLast())
        #expect(!FileManager.default.fileExists(atPath: String(cache)), "the temporary cache is removed")
    }

    @Test("given a URL, the example fetches it through Larder from that origin, and precaches nothing")
    func fetchesAGivenURL() async throws {
        let origin = try await TestOrigin.start()
        origin.setRoute("/given", .text("from the given origin", headers: [("Cache-Control", "max-age=600")]))
        let run = try await LarderCLI.run([origin.url("/given")], executable: Self.binary, timeout: .seconds(120))
        try await origin.stop()
        #expect(run.exitCode == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("first fetch: 200, 21 bytes, "), "\(run.stdout)")
        #expect(!run.stdout.contains("precache:"), "\(run.stdout)")
        #expect(origin.requestCount("/given") == 1, "the second fetch was a hit")
    }
}

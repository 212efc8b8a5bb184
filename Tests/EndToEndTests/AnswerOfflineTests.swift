import Foundation
import LarderTestSupport
import Testing

/// A read sent as POST that nothing keys (Plotly Dash's callbacks): /dev/offline's **Answer
/// offline** (docs/SERVING.md, "Answer offline").
@Suite("End to end: Answer offline", .serialized)
struct AnswerOfflineTests {
    /// Presses a /dev/offline control with `fields`, as the page's form does.
    static func press(_ action: String, _ fields: [String], larder: LarderProcess) async throws -> CurlResult {
        try await Curl.run(
            larder.proxyURL + "/dev/offline/actions/" + action, proxy: nil,
            arguments: ["-X", "POST", "-H", "Origin: \(larder.proxyURL)"] + fields.flatMap { ["--data-urlencode", $0] })
    }

    @Test(
        "a POST read missed offline is offered Answer offline; once pressed and after one online visit it is answered offline by its body, and Remove undoes it"
    )
    func answerOffline() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.stop() } }
        origin.setRoute(
            "/_dash-update-component",
            .dynamic { request in
                .text(#"{"figure":"for \#(String(decoding: request.body, as: UTF8.self))"}"#, contentType: "application/json")
            })
        let url = origin.url("/_dash-update-component")
        let body = #"{"inputs":[{"id":"year","value":2007}]}"#
        func post(_ body: String) async throws -> CurlResult {
            try await Curl.run(
                url, proxy: larder.proxyURL, arguments: ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body])
        }
        let larder = try await LarderProcess()
        do {
            #expect(try await post(body).status == 200)
            try await origin.stop()
            let missed = try await post(body)
            #expect(missed.status == 502, "\(missed.headers)")
            let page = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
            #expect(page.text.contains("/dev/offline/actions/answer-offline"), "the miss offers Answer offline")

            let pressed = try await Self.press("answer-offline", ["url=\(url)", "method=POST"], larder: larder)
            #expect(pressed.status == 303, "\(pressed.status) \(pressed.text)")
            let file = larder.cacheDirectory + "/answer-offline.json"
            let written = try String(contentsOfFile: file, encoding: .utf8)
            #expect(written.contains(url) && written.contains(#""POST""#), "\(written)")
            let report =
                try JSONSerialization.jsonObject(with: Data(try await Curl.run(larder.proxyURL + "/dev/offline.json", proxy: nil).body))
                as? [String: Any]
            let entries = (report?["answeredOffline"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
            #expect(entries.first?["url"] as? String == url, "\(report?["answeredOffline"] ?? "none")")

            // The next online visit keeps the answer; then, offline, the same body is answered.
            try await origin.restart()
            #expect(try await post(body).status == 200)
            try await origin.stop()
            let answered = try await post(body)
            #expect(answered.status == 200, "\(answered.headers)")
            #expect(answered.text == #"{"figure":"for \#(body)"}"#)
            #expect(answered.header("larder-offline") == "1")
            #expect(try await post(#"{"inputs":[{"id":"year","value":1952}]}"#).status == 502, "another body was never answered online")

            let removed = try await Self.press("remove-answer-offline", ["url=\(url)", "method=POST"], larder: larder)
            #expect(removed.status == 303)
            #expect(!(try String(contentsOfFile: file, encoding: .utf8)).contains(url))
            #expect(try await post(body).status == 502, "no longer answered offline")
            // A write method is never offered.
            let write = try await Self.press("answer-offline", ["url=\(url)", "method=DELETE"], larder: larder)
            #expect(!(try String(contentsOfFile: file, encoding: .utf8)).contains("DELETE"), "\(write.status)")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }

    @Test("a broken answer-offline.json is named with its problem, served without, and never overwritten")
    func brokenFile() async throws {
        let directory = LarderProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/cache"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let file = cache + "/answer-offline.json"
        let broken = #"{"routes": [{"match": "https://app.example/x", "cacheMethods": ["POST"]"#
        try broken.write(toFile: file, atomically: true, encoding: .utf8)
        let larder = try await LarderProcess(cacheDirectory: cache)
        do {
            #expect(larder.log.contains(file), "the log names the file: \(larder.log)")
            let page = try await Curl.run(larder.proxyURL + "/dev/offline", proxy: nil)
            #expect(page.text.contains("will not change it until it is mended or removed"))
            let pressed = try await Self.press("answer-offline", ["url=https://app.example/y", "method=POST"], larder: larder)
            #expect(pressed.status == 303)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == broken, "nothing the user wrote is lost")
        } catch {
            print("larder log:\n\(larder.log)")
            await larder.tearDown()
            throw error
        }
        await larder.tearDown()
    }
}

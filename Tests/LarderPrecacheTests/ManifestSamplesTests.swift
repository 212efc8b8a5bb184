import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderPrecache

/// The samples in Manifests/ and the demo's manifests are what the parsers accept.
@Suite("Manifest samples")
struct ManifestSamplesTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Self.packageRoot.appendingPathComponent(path)))
    }

    @Test("samples parse in their formats")
    func samples() throws {
        let root = try HTTPURL(parsing: "https://games.example/games/flipart")
        let meta = try PrecacheManifest.parse(
            status: 200, contentType: "application/json", body: try self.bytes("Manifests/samples/offline.meta.json"),
            manifestURL: try HTTPURL(parsing: "https://games.example/games/flipart/offline.meta.json"), root: root, allowCrossOrigin: false
        )
        #expect(meta.format == .offlineMeta)
        #expect(meta.files.first?.url.absoluteString == "https://games.example/games/flipart/index.html")
        #expect(meta.files.count == 4)

        let workbox = try PrecacheManifest.parse(
            status: 200, contentType: "application/json", body: try self.bytes("Manifests/samples/workbox-precache-manifest.json"),
            manifestURL: try HTTPURL(parsing: "https://games.example/app/precache-manifest.json"),
            root: try HTTPURL(parsing: "https://games.example/app"), allowCrossOrigin: false
        )
        #expect(workbox.format == .workbox)
        #expect(workbox.files.map(\.revision) == ["a1b2c3", nil, nil])

        let vite = try PrecacheManifest.parse(
            status: 200, contentType: "application/json", body: try self.bytes("Manifests/samples/vite-manifest.json"),
            manifestURL: try HTTPURL(parsing: "https://games.example/app/.vite/manifest.json"),
            root: try HTTPURL(parsing: "https://games.example/app"), allowCrossOrigin: false
        )
        #expect(vite.format == .vite)
        #expect(
            Set(vite.files.map(\.url.absoluteString)) == [
                "https://games.example/app/assets/index-Bx12.js", "https://games.example/app/assets/index-9aQk.css",
                "https://games.example/app/assets/click-77fe.wav", "https://games.example/app/assets/levels-c0de.js",
            ])

        let list = GamesList.parse(String(decoding: try self.bytes("Manifests/samples/games.txt"), as: UTF8.self), source: "games.txt")
        #expect(list.problems.isEmpty)
        #expect(list.pageURLs.count == 2)
        #expect(list.games.map(\.slug) == ["flipart", "wordbox", "retired", "app"])
        #expect(
            list.series.map(\.location) == ["https://games.example/p/puzzles.json", "https://games.example/daily/{date:yyyyMMdd}.json"])
    }

    @Test("the series samples parse in both shapes")
    func seriesSamples() throws {
        let manifestURL = try HTTPURL(parsing: "https://games.example/p/puzzles.json")
        let puzzles = try SeriesListing.parse(
            status: 200, contentType: "application/json", body: try self.bytes("Manifests/samples/puzzles.json"), manifestURL: manifestURL,
            allowCrossOrigin: false)
        #expect(puzzles.refused.isEmpty)
        #expect(puzzles.files.map(\.day.description) == ["2025-10-24", "2025-10-25", "2025-10-26", "2025-10-27", "2025-10-28"])
        #expect(puzzles.files.first?.url.absoluteString == "https://games.example/p/2025-10-24.bin")
        let declared = try SeriesListing.parse(
            status: 200, contentType: "application/json", body: try self.bytes("Manifests/samples/series-files.json"),
            manifestURL: manifestURL,
            allowCrossOrigin: false)
        #expect(declared.refused.isEmpty)
        #expect(
            declared.files.map { "\($0.day) \($0.url.absoluteString)" } == [
                "2025-10-26 https://games.example/p/2025-10-26/board.json", "2025-10-27 https://games.example/p/2025-10-27/board.json",
                "2025-10-25 https://games.example/p/archive/p20251025.json",
            ])
    }

    @Test("the demo's games.txt and manifests parse, every listed file exists")
    func demo() throws {
        let list = GamesList.parse(String(decoding: try self.bytes("Examples/games.txt"), as: UTF8.self), source: "Examples/games.txt")
        #expect(list.problems.isEmpty)
        for game in list.games {
            let sitePath = "Examples/site" + game.manifestURL.path
            let manifest = try PrecacheManifest.parse(
                status: 200, contentType: "application/json", body: try self.bytes(sitePath),
                manifestURL: game.manifestURL, root: game.root, allowCrossOrigin: false
            )
            for file in manifest.files {
                let local = Self.packageRoot.appendingPathComponent("Examples/site" + file.url.path).path
                #expect(FileManager.default.fileExists(atPath: local), "\(game.slug) lists \(file.url.path), which is not in Examples/site")
            }
        }
    }
}

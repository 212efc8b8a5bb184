import Foundation
import Testing

@testable import LarderPack

/// The tar writer and reader (`TarWriter.swift`, `TarReader.swift`, `TarHeader.swift`).
struct TarTests {
    /// Writes `files` as a tar to `path`.
    private func writeTar(_ files: [(String, [UInt8])], to path: String, finish: Bool = true) throws {
        try withFileForWriting(path) { descriptor in
            let writer = TarWriter(descriptor: descriptor, path: path)
            for (name, bytes) in files {
                try writer.beginFile(name: name, size: Int64(bytes.count), modified: 1_700_000_000)
                // In uneven pieces, as bodies are streamed.
                var rest = bytes[...]
                while !rest.isEmpty {
                    let piece = Array(rest.prefix(1000))
                    try writer.write(piece)
                    rest = rest.dropFirst(piece.count)
                }
                try writer.endFile()
            }
            if finish { try writer.finish() }
        }
    }

    /// Every entry of the tar at `path`, read whole.
    private func readTar(_ path: String) async throws -> [(String, [UInt8])] {
        try await withFileForReading(path) { descriptor in
            let reader = TarReader(descriptor: descriptor, path: path)
            var files: [(String, [UInt8])] = []
            while let (name, size) = try reader.next() {
                var bytes: [UInt8] = []
                while case let piece = try reader.read(upTo: 777), !piece.isEmpty {
                    bytes += piece
                }
                #expect(Int64(bytes.count) == size)
                files.append((name, bytes))
            }
            return files
        }
    }

    @Test
    func filesComeBackWithTheirNamesAndBytes() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/a.tar"
            let files = [("larder-pack.json", Array("{}".utf8)), ("bodies/empty", []), ("bodies/big", sampleBody(count: 200_000, seed: 3))]
            try self.writeTar(files, to: path)
            let read = try await self.readTar(path)
            #expect(read.map(\.0) == files.map(\.0))
            #expect(read.map(\.1) == files.map(\.1))
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(size.map { $0 % 512 } == 0, "blocks of 512 bytes")
        }
    }

    @Test
    func theSystemTarReadsWhatTheWriterWrites() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/a.tar"
            let body = sampleBody(count: 5000, seed: 9)
            try self.writeTar([("larder-pack.json", Array("{}".utf8)), ("bodies/x", body)], to: path)
            let tar = Process()
            tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            tar.arguments = ["tar", "-xf", path, "-C", directory]
            try tar.run()
            tar.waitUntilExit()
            #expect(tar.terminationStatus == 0)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/bodies/x"))) == body)
        }
    }

    @Test
    func aStreamCutAnywhereIsTruncated() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/a.tar"
            try self.writeTar([("a", sampleBody(count: 3000, seed: 1)), ("b", sampleBody(count: 10, seed: 2))], to: path)
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            // Inside a header, inside data, inside padding, before the end blocks.
            for cut in [100, 512 + 1500, 512 + 3000 + 20, 512 + 3072 + 512 + 512] {
                let cutPath = directory + "/cut-\(cut).tar"
                try whole.prefix(cut).write(to: URL(fileURLWithPath: cutPath))
                do {
                    _ = try await self.readTar(cutPath)
                    Issue.record("cut at \(cut): read without an error")
                } catch let error as PackError {
                    guard case .truncated = error else {
                        Issue.record("cut at \(cut): \(error)")
                        continue
                    }
                }
            }
        }
    }

    @Test(arguments: ["../escape", "/etc/passwd", "bodies/../../x", "a//b", "./a", "a\\b"])
    func namesThatEscapeAreRefused(_ name: String) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/a.tar"
            var header = TarHeader(name: name, size: 1, kind: .file).encoded()
            header += [0x41] + [UInt8](repeating: 0, count: 511) + [UInt8](repeating: 0, count: 1024)
            try Data(header).write(to: URL(fileURLWithPath: path))
            do {
                _ = try await self.readTar(path)
                Issue.record("\(name) was accepted")
            } catch let error as PackError {
                guard case .damaged(_, let reason) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(reason.contains(name))
            }
        }
    }

    @Test
    func aDamagedHeaderOrALinkIsRefused() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/a.tar"
            var header = TarHeader(name: "a", size: 0, kind: .file).encoded()
            header[0] = 0x62  // "b": the checksum no longer matches
            try Data(header + [UInt8](repeating: 0, count: 1024)).write(to: URL(fileURLWithPath: path))
            await #expect(throws: PackError.self) { _ = try await self.readTar(path) }

            var link = TarHeader(name: "a", size: 0, kind: .file).encoded()
            link[156] = 0x32  // "2": a symbolic link
            var sum = 0
            for (index, byte) in link.enumerated() { sum += (148..<156).contains(index) ? 0x20 : Int(byte) }
            let digits = Array(String(sum, radix: 8).utf8)
            let field = [UInt8](repeating: 0x30, count: 6 - digits.count) + digits + [0, 0x20]
            link.replaceSubrange(148..<156, with: field)
            try Data(link + [UInt8](repeating: 0, count: 1024)).write(to: URL(fileURLWithPath: path))
            do {
                _ = try await self.readTar(path)
                Issue.record("a link was accepted")
            } catch let error as PackError {
                #expect("\(error)".contains("type '2'"), "\(error)")
            }
        }
    }

    @Test
    func paxSizesRoundTripAndPaxNamesAreRefused() throws {
        let records = TarHeader.paxRecords(size: 9_000_000_000)
        #expect(String(decoding: records, as: UTF8.self) == "19 size=9000000000\n")
        #expect(try TarHeader.paxSize(records) == 9_000_000_000)
        #expect(throws: TarProblem.self) { try TarHeader.paxSize(Array("16 path=../../x\n".utf8)) }
        #expect(throws: TarProblem.self) { try TarHeader.paxSize(Array("99 size=1\n".utf8)) }
    }
}

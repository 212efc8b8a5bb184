// Fuzzes the config file (larder.json) reader, the size parser it uses for maxSize, and the
// globs it builds.
//
// Input: the file's bytes (also read as a size such as "512MB").
import FuzzerDriver
import LarderConfig
import LarderHTTP

#if canImport(Glibc)
    import Glibc
#endif

enum Fixture {
    static let keys = [
        "https://cdn.example/games/flipart/assets/index-s5wVp7Ny.js?v=1",
        "http://127.0.0.1:8000/index.html",
        "https://fonts.gstatic.com/s/x.woff2",
    ].map { try! CacheKey(url: $0) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    checkByteSize(String(decoding: bytes, as: UTF8.self))

    let file: LarderConfigFile
    do {
        file = try LarderConfigFile(parsing: bytes, file: "larder.json")
    } catch {
        let lines = bytes.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        precondition(error.file == "larder.json", "error names \(error.file)")
        precondition(error.line.map { (1...lines).contains($0) } ?? true, "error on line \(String(describing: error.line)) of \(lines)")
        precondition(error.column.map { $0 >= 1 } ?? true, "error in column \(String(describing: error.column))")
        precondition(error.description.hasPrefix("larder.json:"), error.description)
        return 0
    }
    precondition(file.maxSize.map { $0 >= 0 } ?? true, "maxSize \(String(describing: file.maxSize))")
    for route in file.routes {
        if let timeout = route.networkTimeout {
            precondition(timeout > .zero && timeout <= .seconds(86_400), "networkTimeout \(timeout)")
        }
        if let maxAge = route.maxAge {
            precondition(maxAge > .zero && maxAge <= .seconds(2_147_483_647), "maxAge \(maxAge)")
        }
        // Regexes are the file author's own and may backtrack for long; globs are linear.
        if case .glob = route.pattern {
            for key in Fixture.keys {
                _ = route.matches(key)
            }
        }
    }
    for glob in file.precacheExcludes {
        for key in Fixture.keys {
            _ = glob.matches(key)
        }
    }
    for pattern in file.queryFilter.patterns {
        _ = file.queryFilter.ignores(pattern)
    }
    return 0
}

/// A parsed size is a non-negative number of bytes that reads back as itself.
func checkByteSize(_ text: String) {
    guard let size = try? ByteSize(parsing: text) else {
        return
    }
    precondition(size.bytes >= 0, "\(text.debugDescription) is \(size.bytes) bytes")
    precondition((try? ByteSize(parsing: "\(size.bytes)B"))?.bytes == size.bytes, "\(size.bytes)B does not read back")
    _ = size.description
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))

import Foundation
import LarderHTTP
@_spi(Benchmarks) import LarderStore
import NIOHTTP1
import Synchronization

// What the benchmarks run on: URLs, request heads and stores shaped like the macro benchmarks'.

/// A stored asset's URL, shaped like the assets a game loads (the shape `larder debug fill-index`
/// writes): ten hosts, a thousand folders.
func assetURL(_ index: Int) -> String {
    "https://cdn\(index % 10).example/games/game-\(index % 1000)/assets/file-\(index)-\(String(index, radix: 36)).js"
}

/// A plain asset URL, as a page's request for a script asks for it.
let plainURL = "https://cdn.example/games/flipart/assets/index-Bx12.js"
/// The same kind of URL with everything the cache key normalises: upper case, the default port,
/// dot segments, escapes of unreserved characters, a `utm_` parameter and a fragment.
let messyURL = "HTTPS://CDN.Example:443/games/./flipart/../flipart/assets/%7Eindex-Bx12.js?v=2&utm_source=x&lang=en#gameplay=1a2b"

/// The body stored for `index` in a store of ``bodySize(entries:)`` bodies.
func body(_ index: Int, size: Int) -> [UInt8] {
    let text = Array("entry \(index)\n".utf8)
    return text + [UInt8](repeating: UInt8(ascii: "."), count: max(0, size - text.count))
}

/// Bodies of 1 KiB (the macro benchmarks' small hit) in small stores; a few bytes in the
/// 100,000-entry one, which only the lookups use.
func bodySize(entries: Int) -> Int {
    entries <= 1_000 ? 1024 : 16
}

/// The request head a client sends for `url` through the proxy: an absolute-form keep-alive GET
/// with a browser's usual fields (`extra` adds conditionals or ranges).
func requestHead(_ url: String, extra: [(String, String)] = []) -> HTTPRequestHead {
    let host = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? "cdn.example"
    var headers = HTTPHeaders([
        ("Host", host),
        ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"),
        ("Accept", "*/*"),
        ("Accept-Language", "en-GB,en;q=0.5"),
        ("Accept-Encoding", "gzip, deflate, br"),
    ])
    headers.add(contentsOf: extra)
    return HTTPRequestHead(version: .http1_1, method: .GET, uri: url, headers: headers)
}

/// The `ETag` stored for entry `index`.
func etag(_ index: Int) -> String {
    "\"e-\(index)\""
}

/// A store in a temporary folder (in /dev/shm when there is one, so filling it is quick) with
/// `count` runtime entries of ``assetURL(_:)``, written through the ordinary write path by four
/// writers at once (as `larder debug fill-index` does), each with the headers an origin such as
/// nginx sends for a static file.
func fillStore(_ directory: String, entries count: Int) async throws {
    let store = try Store(directory: directory)
    let size = bodySize(entries: count)
    let stored = Date()
    let lastModified = HTTPDate.format(stored.addingTimeInterval(-86_400))
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<4 {
            group.addTask {
                for index in stride(from: worker, to: count, by: 4) {
                    let url = assetURL(index)
                    let bytes = body(index, size: size)
                    let writer = try store.makeBodyWriter()
                    try writer.write(contentsOf: bytes)
                    let head = StoredResponseHead(
                        url: url,
                        status: 200,
                        headers: [
                            HeaderField(name: "Server", value: "nginx"),
                            HeaderField(name: "Date", value: HTTPDate.format(stored)),
                            HeaderField(name: "Content-Type", value: "application/javascript"),
                            HeaderField(name: "Content-Length", value: String(bytes.count)),
                            HeaderField(name: "Last-Modified", value: lastModified),
                            HeaderField(name: "ETag", value: etag(index)),
                            HeaderField(name: "Cache-Control", value: "public, max-age=86400"),
                            HeaderField(name: "Accept-Ranges", value: "bytes"),
                        ],
                        requestTime: stored,
                        responseTime: stored
                    )
                    _ = try await writer.commit(
                        key: try CacheKey(url: url), head: head, kind: .runtime, expectedLength: Int64(bytes.count))
                }
            }
        }
        try await group.waitForAll()
    }
    try store.close()
}

/// How long a store's remembered lookups are trusted.
enum LookupTrust: Hashable {
    /// A second, as `larder serve` has it: ``Store/entry(for:)`` does not use the memo.
    case ordinary
    /// For as long as the benchmarks run: every lookup of a key looked up before is a memo hit.
    case always
    /// Never: every ``Store/variants(of:)`` reads the index.
    case never
}

/// The stores the benchmarks use: each size filled once, opened once per trust, removed at exit.
actor Stores {
    static let shared = Stores()
    private var directories: [Int: String] = [:]
    private var opened: [String: Store] = [:]

    func store(entries: Int, trust: LookupTrust = .ordinary) async throws -> Store {
        let directory = try await self.directory(entries: entries)
        let name = "\(entries) \(trust)"
        if let store = self.opened[name] {
            return store
        }
        let store: Store
        switch trust {
        case .ordinary: store = try Store(directory: directory)
        case .always: store = try Store(directory: directory, lookupTrust: 1e9)
        case .never: store = try Store(directory: directory, lookupTrust: 0)
        }
        self.opened[name] = store
        return store
    }

    private func directory(entries: Int) async throws -> String {
        if let directory = self.directories[entries] {
            return directory
        }
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let directory = "\(base)/larder-micro-\(entries)-\(UUID().uuidString)"
        self.directories[entries] = directory
        try await fillStore(directory, entries: entries)
        return directory
    }

    func removeAll() throws {
        for store in self.opened.values {
            try store.close()
        }
        for directory in self.directories.values {
            try? FileManager.default.removeItem(atPath: directory)
        }
        self.opened = [:]
        self.directories = [:]
    }
}

/// A benchmark's operation did not produce what it must: the figures would measure something else.
struct WrongResult: Error, CustomStringConvertible {
    var description: String
}

/// Throws ``WrongResult`` saying `problem` unless `condition` holds.
func check(_ condition: Bool, _ problem: @autoclosure () -> String) throws(WrongResult) {
    if !condition {
        throw WrongResult(description: problem())
    }
}

/// How many benchmarks are registered so far.
private let registered = Mutex(0)

/// `name` numbered in the order benchmarks are registered, which is the order a hit runs their
/// pieces: the tool lists benchmarks sorted by name.
func inHitOrder(_ name: String) -> String {
    let number = registered.withLock { count in
        count += 1
        return count
    }
    return (number < 10 ? "0" : "") + "\(number) \(name)"
}

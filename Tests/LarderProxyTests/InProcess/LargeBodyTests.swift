import Foundation
import LarderHTTP
import LarderTestSupport
import Synchronization
import Testing

@testable import LarderProxy
@testable import LarderStore

/// Stored bodies too large to keep in memory go from their files by `sendfile`, whole or as a
/// range, on the immediate and the ordinary path: the bytes and headers a client gets, and what a
/// client gets when the body file is evicted, replaced or cut short while it is being sent.
@Suite("In-process proxy: large stored bodies, whole and ranges")
struct LargeBodyTests {
    static let url = "http://site.example/media.bin"

    /// Runs `body` against an in-process proxy whose store's lookups are trusted for a minute, so
    /// a plain GET after the first is the immediate path's even on a loaded machine.
    static func withProxy(_ body: (InProcessProxy) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("large-\(UUID().uuidString)").path
        let store = try Store(directory: directory, migratingUpTo: nil, lookupTrust: 60)
        defer {
            try? store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await InProcessProxy.with(upstream: ScriptedUpstream(), store: store, body)
    }

    /// Stores a generated body of `length` bytes for ``url`` and returns its key.
    @discardableResult
    static func store(_ length: Int64, in store: Store, offset: Int64 = 0) async throws -> CacheKey {
        let key = try CacheKey(url: Self.url)
        let writer = try store.makeBodyWriter()
        try writer.write(contentsOf: GeneratedBody.bytes(offset..<offset + length))
        let head = StoredResponseHead(
            url: Self.url,
            status: 200,
            headers: [HeaderField(name: "Cache-Control", value: "max-age=3600"), HeaderField(name: "ETag", value: "\"m\"")],
            requestTime: Date(),
            responseTime: Date()
        )
        _ = try await writer.commit(key: key, head: head, kind: .runtime, expectedLength: nil)
        return key
    }

    @Test("a 3 MiB body: whole (ordinary and immediate path), HEAD, ranges as 206 with Content-Range, several ranges whole")
    func wholeAndRanges() async throws {
        let length: Int64 = 3 << 20
        try await Self.withProxy { proxy in
            try await Self.store(length, in: proxy.store)
            let whole = GeneratedBody.bytes(0..<length)
            // The first hit loads the lookup (ordinary path); the next ones may be immediate.
            for attempt in 0..<3 {
                let answer = try await proxy.get(Self.url)
                #expect(answer.status == 200, "attempt \(attempt)")
                #expect(answer.header("content-length") == String(length))
                #expect(answer.header("cache-status")?.hasPrefix("larder; hit") == true)
                #expect(Bytes(answer.bodyBytes) == Bytes(whole), "attempt \(attempt)")
            }
            // A client conditional that does not match takes the ordinary path and gets it all.
            let conditional = try await proxy.get(Self.url, headers: [("If-None-Match", "\"other\"")])
            #expect(conditional.status == 200)
            #expect(Bytes(conditional.bodyBytes) == Bytes(whole))

            let head = try await proxy.get(Self.url, method: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("content-length") == String(length))
            #expect(head.bodyBytes.isEmpty)

            let ranges: [(String, Range<Int64>)] = [
                ("0-0", 0..<1), ("1000-1999", 1000..<2000), ("3000000-", 3_000_000..<length), ("-5000", length - 5000..<length),
                ("3145000-9999999", 3_145_000..<length), ("65535-131072", 65535..<131_073),
            ]
            for (range, expected) in ranges {
                for ifRange in [false, true] {
                    var headers = [("Range", "bytes=\(range)")]
                    if ifRange { headers.append(("If-Range", "\"m\"")) }
                    let answer = try await proxy.get(Self.url, headers: headers)
                    #expect(answer.status == 206, "range \(range)")
                    #expect(answer.header("content-range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(length)")
                    #expect(answer.header("content-length") == String(expected.count), "range \(range)")
                    #expect(Bytes(answer.bodyBytes) == Bytes(GeneratedBody.bytes(expected)), "range \(range)")
                }
            }
            let beyond = try await proxy.get(Self.url, headers: [("Range", "bytes=\(length)-")])
            #expect(beyond.status == 416)
            #expect(beyond.header("content-range") == "bytes */\(length)")
            #expect(beyond.bodyBytes.isEmpty)

            let several = try await proxy.get(Self.url, headers: [("Range", "bytes=0-9,2000000-2000009")])
            #expect(several.status == 200, "several ranges are answered with the whole body")
            #expect(Bytes(several.bodyBytes) == Bytes(whole))
        }
    }

    /// What is done to the body file while the client holds its answer half-read.
    enum Midway: String, CaseIterable, Sendable {
        /// The entry is removed (its file unlinked), as eviction does.
        case evicted
        /// A new response for the URL is stored (another body file; the old one goes).
        case replaced
        /// Something other than Larder cuts the file short.
        case shortened
    }

    @Test(
        "a body file evicted or replaced midway is still sent whole and right; one cut short midway is never taken for whole",
        arguments: Midway.allCases, [false, true])
    func changedMidway(_ change: Midway, ranged: Bool) async throws {
        // Far more than loopback's socket buffers hold, so most of it is unsent when the file changes.
        let length: Int64 = 16 << 20
        let range: Range<Int64> = ranged ? 1000..<length : 0..<length
        // Where a shortened file ends.
        let cut: Int64 = 1 << 20
        try await Self.withProxy { proxy in
            let key = try await Self.store(length, in: proxy.store)
            let entry = try #require(await proxy.store.entry(for: key))
            // Twice, so the second may be the immediate path's (a plain GET); a range is the ordinary path's.
            for attempt in 0..<2 {
                let client = try HeldClient(port: proxy.port)
                client.send(
                    "GET \(Self.url) HTTP/1.1\r\nHost: site.example\r\nConnection: close\r\n"
                        + (ranged ? "Range: bytes=1000-\r\n" : "") + "\r\n")
                let head = try await client.readHead()
                #expect(head.hasPrefix(ranged ? "HTTP/1.1 206 " : "HTTP/1.1 200 "), "\(head)")
                #expect(head.lowercased().split(separator: "\r\n").contains("content-length: \(range.count)"), "\(head)")
                switch change {
                case .evicted:
                    #expect(try await proxy.store.removeEntry(for: key))
                case .replaced:
                    try await Self.store(length, in: proxy.store, offset: 7)
                case .shortened:
                    #expect(truncate(entry.bodyPath, off_t(cut)) == 0)
                }
                let (body, closed) = try await client.readToEnd()
                #expect(closed, "the answer ends with the connection (Connection: close)")
                if change == .shortened {
                    // Cut: the connection closes before the declared length, so the client never
                    // takes it for the whole body, and every byte before the cut is right. (Bytes
                    // past the cut that the socket held may read as zeros: `sendfile` hands the
                    // socket page cache pages, which the kernel zeroes as it cuts the file.)
                    #expect(body.count < range.count)
                    let kept = min(body.count, Int(cut - range.lowerBound))
                    #expect(Bytes(body.prefix(kept)) == Bytes(GeneratedBody.bytes(range.lowerBound..<range.lowerBound + Int64(kept))))
                } else {
                    #expect(body.count == range.count, "attempt \(attempt)")
                    #expect(Bytes(body) == Bytes(GeneratedBody.bytes(range)), "attempt \(attempt)")
                }
                // Put back what the next attempt starts from, and load its lookup (so a plain GET may
                // be answered at once).
                if attempt == 0 {
                    try? FileManager.default.removeItem(atPath: entry.bodyPath)
                    _ = try await proxy.store.removeEntry(for: key)
                    try await Self.store(length, in: proxy.store)
                    _ = try await proxy.get(Self.url, method: "HEAD")
                }
            }
            if change == .shortened {
                // A file not its indexed size (cut short just now) is never served as the stored body.
                let after = try await proxy.get(Self.url)
                #expect(after.status != 200 || after.bodyBytes.count != Int(cut))
            }
        }
    }
}

extension RawAnswer {
    /// The body's bytes (after the head; chunked framing not undone).
    var bodyBytes: [UInt8] {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let start = self.bytes.indices.first(where: { self.bytes[$0...].starts(with: separator) }) else { return [] }
        return Array(self.bytes[(start + separator.count)...])
    }
}

/// A client over a plain blocking socket that reads its answer only when told, with a small
/// receive buffer: until then the proxy's writes wait, part sent, part not. Reads block a
/// dispatch thread, never one of the tasks' threads (the proxy under test runs on those).
final class HeldClient: Sendable {
    private let descriptor: Int32
    /// Bytes read past what was returned so far.
    private let pending = Mutex<[UInt8]>([])

    init(port: Int) throws {
        self.descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size: Int32 = 64 * 1024
        setsockopt(self.descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        // A hung answer fails the test instead of blocking it.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(self.descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(self.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(self.descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit {
        close(self.descriptor)
    }

    func send(_ request: String) {
        _ = Array(request.utf8).withUnsafeBytes { write(self.descriptor, $0.baseAddress, $0.count) }
    }

    /// Reads up to the blank line after the head; what came after it is kept for ``readToEnd()``.
    func readHead() async throws -> String {
        try await Self.offThePool {
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            while true {
                let head = self.pending.withLock { pending -> String? in
                    guard let end = pending.indices.first(where: { pending[$0...].starts(with: separator) }) else { return nil }
                    let head = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeFirst(end + separator.count)
                    return head
                }
                if let head { return head }
                guard self.readSome() > 0 else { throw POSIXError(.ECONNRESET) }
            }
        }
    }

    /// Everything after the head up to the connection's end, and whether it did end (not the
    /// read timeout).
    func readToEnd() async throws -> (bytes: [UInt8], closed: Bool) {
        try await Self.offThePool {
            var count = 1
            while count > 0 {
                count = self.readSome()
            }
            return (self.pending.withLock { $0 }, count == 0)
        }
    }

    /// Reads what has come: the count, 0 at the connection's end, -1 on the read timeout.
    @discardableResult
    private func readSome() -> Int {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        let count = buffer.withUnsafeMutableBytes { read(self.descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            self.pending.withLock { $0 += buffer[..<count] }
        }
        return count
    }

    private static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

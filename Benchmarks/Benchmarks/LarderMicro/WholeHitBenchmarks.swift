import Benchmark
@_spi(Benchmarks) import LarderProxy
import NIOCore
import NIOHTTP1

/// One whole immediate hit, as a connection's event loop answers it (ImmediateHits): a request
/// head in, the bytes of the answer's head and body out.
func wholeHitBenchmarks() {
    for preparing in [false, true] {
        let name =
            preparing
            ? "ImmediateHits.answer 1 KiB GET, first of its target (prepares the answer)"
            : "ImmediateHits.answer 1 KiB GET, prepared (head in, bytes out)"
        Benchmark(inHitOrder(name)) { benchmark in
            let (path, heads) = try await WarmedHitPath.shared.get()
            let allocator = ByteBufferAllocator()
            for (index, head) in heads.enumerated() {
                try checkAnswer(path.immediateAnswer(head, allocator: allocator, preparing: preparing), index: index)
            }
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                let answer = path.immediateAnswer(heads[index % heads.count], allocator: allocator, preparing: preparing)
                try check(answer?.body?.readableBytes == 1024, "no immediate answer for \(heads[index % heads.count].uri)")
                blackHole(answer)
            }
            benchmark.stopMeasurement()
        }
    }
}

/// The same whole hit read inside intercepted TLS (an origin-form target, the `CONNECT`'s origin),
/// as the event loop answers HTTPS hits; TLS itself is not part of it.
func interceptedHitBenchmarks() {
    Benchmark(inHitOrder("ImmediateHits.answer 1 KiB GET inside intercepted TLS, prepared (head in, bytes out)")) { benchmark in
        let (path, heads) = try await WarmedHitPath.shared.get()
        let requests = try heads.map(BenchmarkHitPath.InterceptedRequest.init)
        let allocator = ByteBufferAllocator()
        for (index, request) in requests.enumerated() {
            try checkAnswer(path.immediateAnswer(request, allocator: allocator), index: index)
        }
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            let answer = path.immediateAnswer(requests[index % requests.count], allocator: allocator)
            try check(answer?.body?.readableBytes == 1024, "no immediate answer inside TLS for \(heads[index % heads.count].uri)")
            blackHole(answer)
        }
        benchmark.stopMeasurement()
    }
}

/// The hit path over the 100-entry store with its lookups remembered, and a request head for
/// each of its 100 assets, each answered once the ordinary way first (as a server's first
/// request for a target is): what a server holds after serving them for a while. Made once.
private actor WarmedHitPath {
    static let shared = WarmedHitPath()
    private var made: (BenchmarkHitPath, [HTTPRequestHead])?

    func get() async throws -> (BenchmarkHitPath, [HTTPRequestHead]) {
        if let made = self.made {
            return made
        }
        let path = BenchmarkHitPath(store: try await Stores.shared.store(entries: 100, trust: .always))
        let heads = (0..<100).map { requestHead(assetURL($0)) }
        for head in heads {
            let status = try await path.answerOrdinarily(head)
            try check(status == 200, "the ordinary path answered \(head.uri) with \(status)")
        }
        self.made = (path, heads)
        return (path, heads)
    }
}

/// Checks a whole answer to the request for asset `index`.
private func checkAnswer(_ answer: (head: ByteBuffer, body: ByteBuffer?)?, index: Int) throws {
    guard let answer else {
        throw WrongResult(description: "no immediate answer for \(assetURL(index))")
    }
    // A 1 KiB body follows the head in the same buffer.
    let written = Array(answer.head.readableBytesView)
    let blankLine = Array("\r\n\r\n".utf8)
    guard let end = (0...(written.count - blankLine.count)).first(where: { written[$0..<$0 + blankLine.count].elementsEqual(blankLine) }) else {
        throw WrongResult(description: "no end of head in the immediate answer for \(assetURL(index))")
    }
    let head = String(decoding: written[..<(end + blankLine.count)], as: UTF8.self)
    try check(
        head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("\r\nCache-Status: larder; hit; ttl=")
            && head.contains("\r\ncontent-length: 1024\r\n"),
        "the immediate answer for \(assetURL(index)) has the head \(head)")
    try check(
        answer.body == nil && Array(written[(end + blankLine.count)...]) == body(index, size: 1024),
        "the wrong body for \(assetURL(index))")
}

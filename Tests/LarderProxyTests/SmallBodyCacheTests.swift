import NIOCore
import Testing

@testable import LarderProxy

struct SmallBodyCacheTests {
    @Test("keeps small bodies by hash within its byte budget, the oldest going first; large ones are not kept")
    func bounded() {
        let cache = SmallBodyCache(maximumBodySize: 100, capacity: 250)
        func body(_ byte: UInt8, _ count: Int) -> ByteBuffer { ByteBuffer(bytes: [UInt8](repeating: byte, count: count)) }
        cache.insert(body(1, 100), hash: "a")
        cache.insert(body(2, 100), hash: "b")
        cache.insert(body(3, 101), hash: "big")
        #expect(cache.body(hash: "big") == nil)
        #expect(cache.body(hash: "a") == body(1, 100))
        cache.insert(body(4, 100), hash: "c")
        #expect(cache.body(hash: "a") == nil)
        #expect(cache.body(hash: "b") == body(2, 100))
        #expect(cache.body(hash: "c") == body(4, 100))
        for index in 0..<5000 {
            cache.insert(body(5, 10), hash: "n\(index)")
        }
        #expect(cache.body(hash: "n4999") != nil)
        #expect(cache.body(hash: "n4974") == nil)
    }
}

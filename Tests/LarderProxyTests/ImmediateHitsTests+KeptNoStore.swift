import Foundation
import LarderHTTP
import NIOCore
import Testing

@testable import LarderProxy
@testable import LarderStore

extension ImmediateHitsTests {
    @Test(
        "a page kept against its no-store is never an immediate hit, even fresh by its headers; the ordinary path answers with it only because the origin cannot"
    )
    func keptNoStoreIsNeverAnsweredOnline() async throws {
        let fixture = try Fixture()
        let url = "http://admin.example/admin/"
        let owner = AnswerOwner(client: .local, request: [HeaderField](), url: try HTTPURL(parsing: url))
        let writer = try fixture.store.makeBodyWriter()
        try writer.write(contentsOf: Array("kept".utf8))
        let head = StoredResponseHead(
            url: url, status: 200, headers: [HeaderField(name: "Cache-Control", value: "max-age=3600, no-store, private")],
            requestTime: Date(), responseTime: Date(), varyRequestHeaders: [owner.recorded])
        let entry = try await writer.commit(
            key: VaryKey.storageKey(try CacheKey(url: url), values: [owner.recorded]), head: head, kind: .runtime, expectedLength: nil)
        fixture.proxy.smallBodies.insert(ByteBuffer(string: "kept"), hash: entry.bodyHash)

        #expect(try await fixture.answer(url) == nil)
        // The fixture's upstream cannot be reached: only then is the kept copy the answer.
        let ordinary = try await fixture.ordinaryAnswer(url)
        #expect(ordinary.body == "kept")
        // Unreachable, or no head within the network timeout (the fixture's background work may run late).
        #expect(ordinary.head.contains("+kept-no-store\r\n"), "\(ordinary.head)")
    }
}

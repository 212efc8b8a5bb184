import Foundation
import LarderHTTP
import LarderStore
import Testing

@testable import LarderDevOffline
@testable import LarderProxy

/// The write queue on /dev/offline: shown per origin, retried and dropped from the page, counted in /metrics.
@Suite("/dev/offline: queued writes")
struct DevOfflineWriteQueueTests {
    let own = ["Origin": DevOfflineFixture.ownOrigin]

    private func enqueue(_ fixture: DevOfflineFixture, _ path: String, origin: String = "http://api.example") async throws -> Int64 {
        try await fixture.store.enqueueWrite(
            NewQueuedWrite(
                origin: origin, method: "POST", url: origin + path, headers: [HeaderField(name: "Idempotency-Key", value: "k")],
                body: Array("{}".utf8))
        ).write.id
    }

    @Test("pending writes and dead letters are listed per origin on the page and in the JSON, and counted in /metrics")
    func listed() async throws {
        let fixture = try DevOfflineFixture()
        let first = try await self.enqueue(fixture, "/save")
        let second = try await self.enqueue(fixture, "/score")
        _ = try await self.enqueue(fixture, "/other", origin: "http://b.example")
        try await fixture.store.deadLetterWrite(id: first, reason: "answered HTTP 400")

        let page = await fixture.get("/dev/offline")
        #expect(page.body.contains("Queued writes"))
        #expect(page.body.contains("POST http://api.example/score"))
        #expect(page.body.contains("answered HTTP 400"))
        #expect(page.body.contains("/dev/offline/actions/retry-write"))

        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        let queue = try #require(report["writeQueue"] as? [String: Any])
        #expect(queue["pending"] as? Int == 2)
        #expect(queue["deadLetters"] as? Int == 1)
        let origins = try #require(queue["origins"] as? [[String: Any]])
        #expect(origins.map { $0["origin"] as? String } == ["http://api.example", "http://b.example"])
        let writes = try #require(origins.first?["writes"] as? [[String: Any]])
        #expect(writes.map { ($0["id"] as? Int).map(Int64.init) } == [second, first], "pending first, in order, then dead letters")
        #expect(writes.last?["state"] as? String == "dead-letter")

        let metrics = await fixture.get("/metrics")
        #expect(metrics.body.contains(#"larder_write_queue{state="pending"} 2"#))
        #expect(metrics.body.contains(#"larder_write_queue{state="dead-letter"} 1"#))
    }

    @Test("retry-write puts a dead letter back in its place; drop-write removes a write; both refuse foreign pages")
    func controls() async throws {
        let fixture = try DevOfflineFixture()
        let first = try await self.enqueue(fixture, "/save")
        let second = try await self.enqueue(fixture, "/score")
        try await fixture.store.deadLetterWrite(id: first, reason: "answered HTTP 400")

        let foreign = await fixture.post(
            "/dev/offline/actions/drop-write", form: [("id", String(second))], headers: ["Origin": "http://evil.example"])
        #expect(foreign.status == 403)
        #expect(try await fixture.store.queuedWrites().count == 2)

        let retried = await fixture.post("/dev/offline/actions/retry-write", form: [("id", String(first))], headers: self.own)
        #expect(retried.status == 303)
        #expect(
            try await fixture.store.nextPendingWrite(origin: "http://api.example")?.id == first, "back in its place, ahead of later writes")

        let dropped = await fixture.post("/dev/offline/actions/drop-write", form: [("id", String(second))], headers: self.own)
        #expect(dropped.status == 303)
        #expect(try await fixture.store.queuedWrites().map(\.id) == [first])
        let unknown = await fixture.post("/dev/offline/actions/drop-write", form: [("id", "999")], headers: self.own)
        #expect(unknown.headers.first(name: "location")?.contains("No%20queued%20write") == true)
    }

    @Test("a queue longer than a page: the count of all, the first 50 by arrival, and a link to the next page, which goes on from there")
    func paged() async throws {
        let fixture = try DevOfflineFixture()
        var ids: [Int64] = []
        for index in 0..<120 {
            ids.append(
                try await self.enqueue(fixture, "/save/\(index)", origin: index % 3 == 0 ? "http://b.example" : "http://api.example"))
        }
        let report = try DevOfflineFixture.json(await fixture.get("/dev/offline.json"))
        let queue = try #require(report["writeQueue"] as? [String: Any])
        #expect(queue["pending"] as? Int == 120)
        #expect(queue["bytes"] as? Int == 240)
        let origins = try #require(queue["origins"] as? [[String: Any]])
        #expect(origins.map { $0["pending"] as? Int } == [80, 40])
        let listed = origins.flatMap { ($0["writes"] as? [[String: Any]]) ?? [] }.compactMap { ($0["id"] as? Int).map(Int64.init) }
        #expect(listed.sorted() == Array(ids[0..<50]))
        #expect((queue["nextAfter"] as? Int).map(Int64.init) == ids[49])

        let page = await fixture.get("/dev/offline")
        #expect(page.body.contains(#"href="/dev/offline?writesAfter=\#(ids[49])#queued-writes""#))
        #expect(page.body.contains("Showing 50 of 120 writes"))
        #expect(page.body.contains("http://api.example/save/1<"))
        #expect(!page.body.contains("http://api.example/save/50<"))

        let last = await fixture.get("/dev/offline?writesAfter=\(ids[99])")
        #expect(last.body.contains("http://api.example/save/100<"))
        #expect(!last.body.contains("http://api.example/save/98<"))
        #expect(!last.body.contains("rel=\"next\""))
        #expect(last.body.contains(#"href="/dev/offline#queued-writes""#))
        let lastJSON = try DevOfflineFixture.json(await fixture.get("/dev/offline.json?writesAfter=\(ids[99])"))
        let lastQueue = try #require(lastJSON["writeQueue"] as? [String: Any])
        #expect(lastQueue["nextAfter"] == nil)
        #expect(lastQueue["pending"] as? Int == 120)
    }
}

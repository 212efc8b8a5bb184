import Testing

@testable import LarderDevOffline
@testable import LarderProxy

@Suite("Store write failures on /dev/offline: shown until storing works")
struct StoreWriteFailuresPageTests {
    @Test("/dev/offline shows that responses are not being stored")
    func shownOnDevOffline() async throws {
        let fixture = try DevOfflineFixture()
        fixture.storeFailures.record(StoreTestError(), url: "http://a.example/x")
        let html = await fixture.get("/dev/offline")
        #expect(html.body.contains("not storing"))
        #expect(html.body.contains("No space left on device"))
        let json = await fixture.get("/dev/offline.json")
        #expect(json.body.contains("\"storeWriteFailures\""))
        fixture.storeFailures.recordSuccess()
        #expect(!(await fixture.get("/dev/offline")).body.contains("not storing"))
    }
}

private struct StoreTestError: Error, CustomStringConvertible {
    var description: String { "No space left on device" }
}

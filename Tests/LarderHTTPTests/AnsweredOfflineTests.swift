import Foundation
import LarderHTTP
import Testing

/// `answer-offline.json` (docs/SERVING.md, "Answer offline"): when each entry was chosen is kept,
/// and files written before it was still load.
@Suite("Answer offline: the file keeps when each entry was chosen")
struct AnsweredOfflineTests {
    @Test("a file written before chosenAt was kept loads, its entries without a time")
    func olderFile() throws {
        let bytes = Array(
            #"{"routes":[{"bodyKey":"exact","cacheMethods":["POST"],"match":"https://app.example/_dash-update-component"}]}"#.utf8)
        let list = try AnsweredOffline(parsing: bytes, file: "answer-offline.json")
        #expect(list.entries.map(\.url) == ["https://app.example/_dash-update-component"])
        #expect(list.entries.first?.chosenAt == nil)
    }

    @Test("chosenAt is written and read back; it is not part of what an entry is")
    func roundTrip() throws {
        let chosen = Date(timeIntervalSince1970: 1_795_492_696)
        let entry = try #require(AnsweredOffline.Entry(url: "https://app.example/api/chart?x=1", method: "post", chosenAt: chosen))
        let text = String(decoding: AnsweredOffline(entries: [entry]).bytes, as: UTF8.self)
        #expect(text.contains(#""chosenAt":"2026-11-24T03:58:16Z""#))
        let read = try AnsweredOffline(parsing: Array(text.utf8), file: "answer-offline.json")
        #expect(read.entries.first?.chosenAt == chosen)
        #expect(read.entries.first?.url == "https://app.example/api/chart")
        #expect(read.entries.first == AnsweredOffline.Entry(url: "https://app.example/api/chart", method: "POST"))
    }

    @Test(
        "a chosenAt that is not a time, or another member, is refused with the file and line",
        arguments: [
            #"{"routes":[{"bodyKey":"exact","cacheMethods":["POST"],"match":"https://app.example/a","chosenAt":"yesterday"}]}"#,
            #"{"routes":[{"bodyKey":"exact","cacheMethods":["POST"],"match":"https://app.example/a","chosenAt":1795492696}]}"#,
            #"{"routes":[{"bodyKey":"exact","cacheMethods":["POST"],"match":"https://app.example/a","strategy":"cache-first"}]}"#,
        ]
    )
    func refused(text: String) {
        #expect(throws: AnsweredOffline.Problem.self) { try AnsweredOffline(parsing: Array(text.utf8), file: "answer-offline.json") }
    }
}

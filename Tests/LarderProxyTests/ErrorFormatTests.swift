import Foundation
import LarderHTTP
import Testing

@testable import LarderProxy

@Suite("Error pages follow Accept")
struct ErrorFormatTests {
    @Test(
        "JSON only when Accept prefers application/json over text/html",
        arguments: [
            ([], ErrorFormat.html),
            (["*/*"], .html),
            (["text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"], .html),
            (["application/json"], .json),
            (["application/json, text/plain, */*"], .json),
            (["Application/JSON; charset=utf-8"], .json),
            (["text/html, application/json"], .html),
            (["application/json;q=0.5, text/html;q=0.4"], .json),
            (["application/json;q=0.4, text/html;q=0.5"], .html),
            (["application/*"], .json),
            (["application/*, text/*"], .html),
            (["application/json;q=0"], .html),
            (["text/plain", "application/json"], .json),
            (["garbage, ;;, /"], .html),
        ]
    )
    func format(accept: [String], expected: ErrorFormat) {
        #expect(ErrorFormat(accept: accept) == expected, "\(accept)")
    }

    @Test("the JSON page has status, title, url, reason and cacheStatus, null when absent")
    func json() throws {
        let page = StatusPage.offlineMiss(url: "http://app.example/api?1")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(page.json(cacheStatus: .forward(.uriMiss, detail: "offline")).utf8))
                as? [String: Any])
        #expect(object["status"] as? Int == 504)
        #expect(object["title"] as? String == "Not available offline")
        #expect(object["url"] as? String == "http://app.example/api?1")
        #expect((object["reason"] as? String)?.hasPrefix("Larder is in offline mode and has no cached copy of this URL. Visit it") == true)
        #expect(object["cacheStatus"] as? String == "larder; fwd=uri-miss; detail=offline")
        let refusal = try #require(
            try JSONSerialization.jsonObject(with: Data(StatusPage.refusal(.forbidden, reason: "No.").json(cacheStatus: nil).utf8))
                as? [String: Any])
        #expect(refusal["url"] is NSNull)
        #expect(refusal["cacheStatus"] is NSNull)
        #expect(Set(refusal.keys) == ["status", "title", "url", "reason", "cacheStatus"])
    }
}

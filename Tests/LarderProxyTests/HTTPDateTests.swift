import Foundation
import Testing

@testable import LarderProxy

@Suite("HTTP-date")
struct HTTPDateTests {
    @Test(
        "parses the three HTTP-date forms",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ]
    )
    func parsesForms(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("IMF-fixdate read by position agrees with formatting for many dates")
    func fixdateRoundTrips() {
        for seconds in stride(from: -2_000_000_000, to: 4_000_000_000, by: 86_400 * 37 + 3_721) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date, "\(HTTPDate.format(date))")
        }
    }

    @Test("rejects what is not an HTTP-date", arguments: ["", "0", "-1", "yesterday", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 0x Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:3x GMT", "Sun, 06 Nov 1994 08:49:37 UTC"])
    func rejects(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("formats IMF-fixdate and round-trips")
    func formats() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        let leap = Date(timeIntervalSince1970: 1_709_164_800)  // 2024-02-29
        #expect(HTTPDate.format(leap) == "Thu, 29 Feb 2024 00:00:00 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(leap)) == leap)
    }
}

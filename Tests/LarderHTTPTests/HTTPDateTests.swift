import Foundation
import Testing

@testable import LarderHTTP

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

    @Test(
        "rejects what is not an HTTP-date",
        arguments: [
            "", "0", "-1", "yesterday", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 0x Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:3x GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
            // The separators are the grammar's: a comma, single spaces, dashes only in RFC 850's date.
            "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
            "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 18 Aug 50 02:01:18 GMT",
            "Thursday 18-Aug-50 02:01:18 GMT",
            "Sun Nov 6 08:49:37 1994", "Sun Nov  06 08:49:37 1994", "Sunday, 06-Nov-94 08:49:37 AEST",
        ])
    func rejects(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test(
        "names in any case",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 gMT", "SUN, 06 NOV 1994 08:49:37 GMT", "SUNDAY, 06-nov-94 08:49:37 gmt", "sun NOV  6 08:49:37 1994",
        ]
    )
    func anyCase(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test("years before 1000 are written with four digits and read back, year 0 too")
    func earlyYears() {
        let yearZero = Date(timeIntervalSince1970: -62_167_219_200)  // 0000-01-01
        #expect(HTTPDate.format(yearZero) == "Sat, 01 Jan 0000 00:00:00 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(yearZero)) == yearZero)
        #expect(HTTPDate.parse("Sat Jan  1 00:00:00 0000") == yearZero)
        let year999 = Date(timeIntervalSince1970: -30_641_760_000)  // 0999-01-01
        #expect(HTTPDate.format(year999) == "Tue, 01 Jan 0999 00:00:00 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(year999)) == year999)
    }

    @Test("an RFC 850 year of two digits follows the 50-year rule; four are taken as written; more are refused")
    func rfc850Years() {
        #expect(HTTPDate.parse("Thursday, 01-Jan-70 00:00:01 GMT") == Date(timeIntervalSince1970: 1))
        #expect(HTTPDate.parse("Thursday, 01-Jan-1970 00:00:01 GMT") == Date(timeIntervalSince1970: 1))
        #expect(HTTPDate.parse("Sunday, 06-Nov-9223372036854775807 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sunday, 06-Nov-19940 08:49:37 GMT") == nil)
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

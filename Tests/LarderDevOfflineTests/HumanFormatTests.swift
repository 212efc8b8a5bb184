import Foundation
import Testing

@testable import LarderDevOffline

@Suite("/dev/offline: human formats")
struct HumanFormatTests {
    @Test("sizes use binary units with one decimal; small sizes are bytes")
    func bytes() {
        #expect(HumanFormat.bytes(0) == "0 B")
        #expect(HumanFormat.bytes(1023) == "1023 B")
        #expect(HumanFormat.bytes(1024) == "1.0 KiB")
        #expect(HumanFormat.bytes(1536) == "1.5 KiB")
        #expect(HumanFormat.bytes(5 * 1024 * 1024) == "5.0 MiB")
        #expect(HumanFormat.bytes(3 * 1024 * 1024 * 1024 + 200 * 1024 * 1024) == "3.2 GiB")
    }

    @Test("counts get thousands separators")
    func counts() {
        #expect(HumanFormat.count(0) == "0")
        #expect(HumanFormat.count(999) == "999")
        #expect(HumanFormat.count(1000) == "1,000")
        #expect(HumanFormat.count(1_234_567) == "1,234,567")
        #expect(HumanFormat.count(-12_345) == "-12,345")
    }

    @Test("relative times read like '3 min ago', future ones like 'in 30 s'")
    func relative() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(HumanFormat.relative(now, now: now) == "just now")
        #expect(HumanFormat.relative(now.addingTimeInterval(-45), now: now) == "45 s ago")
        #expect(HumanFormat.relative(now.addingTimeInterval(-200), now: now) == "3 min ago")
        #expect(HumanFormat.relative(now.addingTimeInterval(-7300), now: now) == "2 h ago")
        #expect(HumanFormat.relative(now.addingTimeInterval(-86_400 * 1.5), now: now) == "1 day ago")
        #expect(HumanFormat.relative(now.addingTimeInterval(-86_400 * 9), now: now) == "9 days ago")
        #expect(HumanFormat.relative(now.addingTimeInterval(30), now: now) == "in 30 s")
    }

    @Test("exact times are UTC, for title and datetime attributes")
    func exact() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.9)
        #expect(HumanFormat.exact(date) == "2023-11-14 22:13:20 UTC")
        #expect(HumanFormat.iso(date) == "2023-11-14T22:13:20Z")
        #expect(HumanFormat.iso(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(HumanFormat.iso(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
    }

    @Test("percentages round, show <1% for a sliver, and nil without a whole")
    func percent() {
        #expect(HumanFormat.percent(1, of: 4) == "25%")
        #expect(HumanFormat.percent(1, of: 1000) == "<1%")
        #expect(HumanFormat.percent(0, of: 10) == "0%")
        #expect(HumanFormat.percent(5, of: 0) == nil)
    }
}

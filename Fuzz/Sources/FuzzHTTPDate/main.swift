// Fuzzes the HTTP-date parser (IMF-fixdate, RFC 850, asctime) and the formatter.
//
// Input: the text of a date; its first eight bytes are also taken as a number of seconds to format.
import Foundation
import FuzzerDriver
import LarderHTTP

/// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the years an HTTP-date's four digits can write.
let firstSecond: Int64 = -62_135_596_800
let endSecond: Int64 = 253_402_300_800

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let text = String(decoding: input, as: UTF8.self)

    if let date = HTTPDate.parse(text) {
        let seconds = date.timeIntervalSince1970
        precondition(seconds.rounded(.down) == seconds, "\(text.debugDescription) is \(seconds) s")
        // Year 0 (which IMF-fixdate's four digits can write) to the leap second ending year 9999.
        precondition(
            seconds >= Double(firstSecond - 366 * 86_400) && seconds <= Double(endSecond),
            "\(text.debugDescription) is \(seconds) s"
        )
        if seconds < Double(endSecond) {
            checkRoundTrip(date, from: text)
        }
    }

    if count >= 8 {
        let raw = input.loadUnaligned(as: Int64.self)
        let span = UInt64(endSecond - firstSecond)
        let seconds = firstSecond + Int64(UInt64(bitPattern: raw) % span)
        checkRoundTrip(Date(timeIntervalSince1970: TimeInterval(seconds)), from: "\(seconds) s")
    }
    return 0
}

/// The date formatted reads back as itself, in all three forms where they can write it.
func checkRoundTrip(_ date: Date, from origin: String) {
    let formatted = HTTPDate.format(date)
    precondition(HTTPDate.parse(formatted) == date, "\(origin) formats as \(formatted), which reads back differently")
    // "Sun, 06 Nov 1994 08:49:37 GMT" -> [Sun, 06, Nov, 1994, 08:49:37, GMT]
    let parts = formatted.dropLast(4).split(separator: " ").map(String.init)
    precondition(parts.count == 5, "\(origin) formats as \(formatted)")
    let (weekday, day, month, year, time) = (parts[0].dropLast(), parts[1], parts[2], parts[3], parts[4])
    // Names in any case read the same; a separator other than the grammar's one space is no date.
    let lowered = formatted.lowercased()
    precondition(HTTPDate.parse(lowered) == date, "\(lowered.debugDescription) reads differently from \(formatted)")
    let spaced = "\(weekday),  \(day) \(month) \(year) \(time) GMT"
    precondition(HTTPDate.parse(spaced) == nil, "\(spaced.debugDescription) is read as a date")
    let asctime = "\(weekday) \(month) \(day.count == 2 && day.hasPrefix("0") ? " " + day.dropFirst() : day) \(time) \(year)"
    precondition(HTTPDate.parse(asctime) == date, "\(asctime.debugDescription) reads differently from \(formatted)")
    if let fullYear = Int(year), (1970...2069).contains(fullYear) {
        let longNames = [
            "Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday",
        ]
        let rfc850 = "\(longNames[String(weekday)] ?? ""), \(day)-\(month)-\(year.suffix(2)) \(time) GMT"
        precondition(HTTPDate.parse(rfc850) == date, "\(rfc850.debugDescription) reads differently from \(formatted)")
    }
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))

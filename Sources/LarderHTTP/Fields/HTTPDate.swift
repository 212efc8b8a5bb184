import Foundation

/// HTTP-date parsing and formatting (RFC 9110 section 5.6.7), without `DateFormatter`.
///
/// Accepts the preferred IMF-fixdate and the two obsolete forms a cache must still read
/// (RFC 850 and asctime); anything else is `nil`, which callers treat as "in the past".
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// Parses an HTTP-date; `nil` when it is not one. Names (day, month, `GMT`) are read in any
    /// case; the separators are exactly the grammar's (one space, the comma, the dashes), so
    /// `Thu 18 Aug 2050 ...` or `Thu, 18-Aug-2050 ...` is not a date (RFC 9110 section 5.6.7).
    public static func parse(_ text: String) -> Date? {
        if let date = self.parseFixdate(text) {
            return date
        }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: (Int, Int, Int)?
        if parts.count == 4, parts[0].hasSuffix(","), self.longDayNames.contains(parts[0].dropLast().lowercased()),
            parts[3].lowercased() == "gmt"
        {
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard date.count == 3, date[0].utf8.count == 2, let shortYear = self.digits(date[2]) else { return nil }
            day = self.digits(date[0])
            month = self.month(date[1])
            // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
            // Other years (cookie-style 01-Jan-1970) are taken as written.
            if date[2].utf8.count <= 2 {
                year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
            } else {
                year = shortYear
            }
            time = self.time(parts[2])
        } else if parts.count == 5 || (parts.count == 6 && parts[2].isEmpty), self.shortDayNames.contains(parts[0].lowercased()) {
            // asctime: Sun Nov  6 08:49:37 1994 (a one-digit day after two spaces)
            let rest = parts.count == 6 ? [parts[1], parts[3], parts[4], parts[5]] : Array(parts[1...])
            guard rest[1].utf8.count == (parts.count == 6 ? 1 : 2), rest[3].utf8.count == 4 else { return nil }
            month = self.month(rest[0])
            day = self.digits(rest[1])
            time = self.time(rest[2])
            year = self.digits(rest[3])
        }
        guard let day, let month, let year, let time,
            (1...31).contains(day), (0...9999).contains(year),
            (0...23).contains(time.0), (0...59).contains(time.1), (0...60).contains(time.2)
        else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.0 * 3_600 + time.1 * 60 + time.2
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static let shortDayNames: Set<String> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDayNames: Set<String> = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// A number of ASCII digits only (no sign, no spaces), at most 9 of them.
    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text)
    }

    /// The common form, `Sun, 06 Nov 1994 08:49:37 GMT`, read by position (every cached answer
    /// reads a few dates); nil when the text is not exactly that shape.
    private static func parseFixdate(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "), bytes[7] == UInt8(ascii: " "),
                bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
                bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "), bytes[26] | 0x20 == UInt8(ascii: "g"),
                bytes[27] | 0x20 == UInt8(ascii: "m"), bytes[28] | 0x20 == UInt8(ascii: "t")
            else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var value = 0
                for index in range {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            let monthText = String(decoding: UnsafeBufferPointer(rebasing: bytes[8..<11]), as: UTF8.self)
            guard let day = number(5..<7), let year = number(12..<16), let hour = number(17..<19),
                let minute = number(20..<22), let second = number(23..<25), let month = self.month(monthText),
                (1...31).contains(day), hour <= 23, minute <= 59, second <= 60
            else { return nil }
            let days = CivilDate.days(year: year, month: month, day: day)
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
        }
    }

    /// Formats a date as IMF-fixdate.
    public static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(days: days)
        let weekday = self.dayNames[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        func four(_ value: Int) -> String { (0..<1000).contains(value) ? String("000\(value)".suffix(4)) : "\(value)" }
        return "\(weekday), \(two(day)) \(self.monthNames[month - 1]) \(four(year)) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    private static func month(_ token: String) -> Int? {
        self.months.firstIndex(of: token.lowercased()).map { $0 + 1 }
    }

    private static func time(_ token: String) -> (Int, Int, Int)? {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts.allSatisfy({ $0.utf8.count == 2 }),
            let hour = self.digits(parts[0]), let minute = self.digits(parts[1]), let second = self.digits(parts[2])
        else { return nil }
        return (hour, minute, second)
    }
}

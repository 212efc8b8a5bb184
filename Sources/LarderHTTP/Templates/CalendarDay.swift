import Foundation

/// A day of the Gregorian calendar, with no time and no zone: what a dated series is keyed by.
///
/// Series compare days, never timestamps: "is today cached?" asks whether the day in the series'
/// time zone equals a listed day, so a file dated `2025-10-26` is today's from that zone's midnight
/// to the next, whatever the clock's seconds say.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The year, e.g. 2025.
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, 1 to 31.
    public var day: Int

    /// A day from its parts, or nil when they name no day (`2025-02-30`); years are 1 to 9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), (1...Self.length(ofMonth: month, in: year)).contains(day) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `date` falls on in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        self.year = parts.year ?? 1970
        self.month = parts.month ?? 1
        self.day = parts.day ?? 1
    }

    /// Parses `YYYY-MM-DD` exactly, or nil.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        guard let day = Self.day(bytes, year: 0, month: 5, day: 8) else { return nil }
        self = day
    }

    /// The first date in `name`: `YYYY-MM-DD`, or eight digits `YYYYMMDD`, not part of a longer run
    /// of digits, that name a real day (`puzzle-2025-10-26.bin`, `p20251026.json`); nil when none.
    public static func first(in name: String) -> CalendarDay? {
        let bytes = Array(name.utf8)
        func isDigit(_ index: Int) -> Bool { index >= 0 && index < bytes.count && (48...57).contains(bytes[index]) }
        var start = 0
        while start + 8 <= bytes.count {
            defer { start += 1 }
            guard isDigit(start), !isDigit(start - 1) else { continue }
            if start + 10 <= bytes.count, bytes[start + 4] == UInt8(ascii: "-"), bytes[start + 7] == UInt8(ascii: "-"),
                !isDigit(start + 10), let day = Self.day(bytes, year: start, month: start + 5, day: start + 8)
            {
                return day
            }
            if !isDigit(start + 8), let day = Self.day(bytes, year: start, month: start + 4, day: start + 6) {
                return day
            }
        }
        return nil
    }

    /// The day `count` days later (earlier for a negative count).
    public func adding(days count: Int) -> CalendarDay {
        Self(dayNumber: self.dayNumber + count)
    }

    /// Days from `self` to `other`: positive when `other` is later.
    public func days(to other: CalendarDay) -> Int {
        other.dayNumber - self.dayNumber
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        "\(Self.padded(self.year, 4))-\(Self.padded(self.month, 2))-\(Self.padded(self.day, 2))"
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    public static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Days since 1970-01-01 (``CivilDate``).
    private var dayNumber: Int {
        CivilDate.days(year: self.year, month: self.month, day: self.day)
    }

    private init(dayNumber: Int) {
        (self.year, self.month, self.day) = CivilDate.date(days: dayNumber)
    }

    /// The day whose digits start at the given offsets of `bytes` (4, 2 and 2 digits), or nil.
    private static func day(_ bytes: [UInt8], year: Int, month: Int, day: Int) -> CalendarDay? {
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let y = number(year, 4), let m = number(month, 2), let d = number(day, 2) else { return nil }
        return CalendarDay(year: y, month: m, day: d)
    }

    private static func length(ofMonth month: Int, in year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

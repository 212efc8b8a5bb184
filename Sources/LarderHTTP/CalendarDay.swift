import Foundation

/// A day on the Gregorian calendar, without a time or a zone: what "today" means for a declared
/// request, compared by calendar day and never by timestamp.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// The day with these numbers (not checked: `adding(days:)` normalises).
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day it is at `date` in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// The day `days` after this one (before, when negative).
    public func adding(days: Int) -> CalendarDay {
        Self(julianDay: self.julianDay + days)
    }

    /// Formats the day with `yyyy`, `MM` and `dd` replaced by its numbers (other characters kept).
    public func formatted(_ pattern: String = "yyyy-MM-dd") -> String {
        var text = pattern.replacingOccurrences(of: "yyyy", with: Self.padded(self.year, 4))
        text = text.replacingOccurrences(of: "MM", with: Self.padded(self.month, 2))
        return text.replacingOccurrences(of: "dd", with: Self.padded(self.day, 2))
    }

    /// `2026-11-24`.
    public var description: String {
        self.formatted()
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The Julian day number (Fliegel and Van Flandern), so days add across months and years.
    private var julianDay: Int {
        let a = (14 - self.month) / 12
        let y = self.year + 4800 - a
        let m = self.month + 12 * a - 3
        return self.day + (153 * m + 2) / 5 + 365 * y + y / 4 - y / 100 + y / 400 - 32045
    }

    private init(julianDay: Int) {
        let a = julianDay + 32044
        let b = (4 * a + 3) / 146097
        let c = a - 146097 * b / 4
        let d = (4 * c + 3) / 1461
        let e = c - 1461 * d / 4
        let m = (5 * e + 2) / 153
        self.init(year: 100 * b + d - 4800 + m / 10, month: m + 3 - 12 * (m / 10), day: e - (153 * m + 2) / 5 + 1)
    }

    private static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

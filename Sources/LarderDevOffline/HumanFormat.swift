import Foundation
import LarderHTTP

/// Numbers and times as people read them on /dev/offline and in `larder status`: sizes in binary
/// units (KiB, MiB), times relative to now with the exact time beside them.
public enum HumanFormat {
    /// `512 B`, `1.5 KiB`, `12.0 MiB`, `3.2 GiB`.
    public static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        guard count >= 1024 || count <= -1024 else {
            return "\(count) B"
        }
        var value = Double(count) / 1024
        var unit = 0
        while abs(value) >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    /// `1,234,567`: a count with thousands separators (fixed, not locale-dependent, so output is stable).
    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 {
                grouped.append(",")
            }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// `just now`, `45 s ago`, `3 min ago`, `2 h ago`, `5 days ago`; `in 30 s` for a future time.
    public static func relative(_ date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        let magnitude = abs(seconds)
        let amount: String
        switch magnitude {
        case ..<2:
            return "just now"
        case ..<60:
            amount = "\(Int(magnitude)) s"
        case ..<3600:
            amount = "\(Int(magnitude / 60)) min"
        case ..<86_400:
            amount = "\(Int(magnitude / 3600)) h"
        default:
            let days = Int(magnitude / 86_400)
            amount = days == 1 ? "1 day" : "\(days) days"
        }
        return seconds >= 0 ? "\(amount) ago" : "in \(amount)"
    }

    /// `2025-03-01 14:05:09 UTC`: the exact time, for a `title` attribute.
    public static func exact(_ date: Date) -> String {
        Self.timestamp(date, separator: " ", zone: " UTC")
    }

    /// `2025-03-01T14:05:09Z`: the exact time for a `datetime` attribute.
    public static func iso(_ date: Date) -> String {
        Self.timestamp(date, separator: "T", zone: "Z")
    }

    private static func timestamp(_ date: Date, separator: String, zone: String) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(days: Int(days))
        let time = String(format: "%02lld:%02lld:%02lld", secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
        return String(format: "%04lld-%02lld-%02lld", Int64(year), Int64(month), Int64(day)) + separator + time + zone
    }

    /// `81%`, or nil when there is nothing to divide by.
    public static func percent(_ part: Int64, of whole: Int64) -> String? {
        guard whole > 0 else { return nil }
        let value = Double(part) / Double(whole) * 100
        if value > 0 && value < 1 {
            return "<1%"
        }
        return "\(Int(value.rounded()))%"
    }
}

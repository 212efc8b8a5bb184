import LarderHTTP
import LarderStore

/// A URL template with a date in it: `https://x.example/p/{date}.bin` or `.../{date:yyyyMMdd}.json`.
///
/// `{date}` is `{date:yyyy-MM-dd}`. A format is made of the tokens `yyyy` (year), `MM` (month) and
/// `dd` (day of the month), zero-padded, and characters other than letters and braces taken as they
/// are (`-`, `/`, `_`, `.`). The template may hold several `{date...}` parts; other braces are refused.
public struct SeriesTemplate: Sendable, Hashable, CustomStringConvertible {
    /// One piece of a template.
    enum Part: Sendable, Hashable {
        case literal(String)
        case year
        case month
        case day
    }

    /// The template as written.
    public var text: String
    let parts: [Part]

    /// Parses a template; the error says what is wrong with it.
    public init(parsing text: String) throws(SeriesTemplateError) {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        var sawDate = false
        while let character = rest.first {
            if character == "}" {
                throw SeriesTemplateError("a \"}\" without its \"{\" in \(text.debugDescription)")
            }
            guard character == "{" else {
                literal.append(character)
                rest = rest.dropFirst()
                continue
            }
            guard let close = rest.firstIndex(of: "}") else {
                throw SeriesTemplateError("a \"{\" without its \"}\" in \(text.debugDescription)")
            }
            let inner = rest[rest.index(after: rest.startIndex)..<close]
            let format: Substring
            if inner == "date" {
                format = "yyyy-MM-dd"
            } else if inner.hasPrefix("date:"), inner.count > 5 {
                format = inner.dropFirst(5)
            } else {
                throw SeriesTemplateError("{\(inner)} is not a date pattern; write {date} or {date:yyyyMMdd}")
            }
            if !literal.isEmpty {
                parts.append(.literal(literal))
                literal = ""
            }
            parts += try Self.formatParts(format)
            sawDate = true
            rest = rest[rest.index(after: close)...]
        }
        if !literal.isEmpty {
            parts.append(.literal(literal))
        }
        guard sawDate else {
            throw SeriesTemplateError("\(text.debugDescription) has no date pattern such as {date} or {date:yyyyMMdd}")
        }
        self.text = text
        self.parts = parts
    }

    /// The template with `day` put in.
    public func url(for day: CalendarDay) -> String {
        var text = ""
        for part in self.parts {
            switch part {
            case .literal(let literal): text += literal
            case .year: text += CalendarDay.padded(day.year, 4)
            case .month: text += CalendarDay.padded(day.month, 2)
            case .day: text += CalendarDay.padded(day.day, 2)
            }
        }
        return text
    }

    /// The template as written.
    public var description: String { self.text }

    private static func formatParts(_ format: Substring) throws(SeriesTemplateError) -> [Part] {
        var parts: [Part] = []
        var rest = format
        while let character = rest.first {
            if rest.hasPrefix("yyyy") {
                parts.append(.year)
                rest = rest.dropFirst(4)
            } else if rest.hasPrefix("MM") {
                parts.append(.month)
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix("dd") {
                parts.append(.day)
                rest = rest.dropFirst(2)
            } else if character.isLetter || character == "{" {
                throw SeriesTemplateError(
                    "the date format \(String(format).debugDescription) has \(String(rest).debugDescription); "
                        + "use yyyy, MM and dd with separators such as - / _ ."
                )
            } else {
                parts.append(.literal(String(character)))
                rest = rest.dropFirst()
            }
        }
        return parts
    }
}

/// Why a series URL template cannot be used.
public struct SeriesTemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the template.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

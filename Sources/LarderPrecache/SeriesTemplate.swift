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
        case date(DayFormat)
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
            let format: DayFormat
            if inner == "date" {
                format = .iso
            } else if inner.hasPrefix("date:"), inner.count > 5 {
                do {
                    format = try DayFormat(parsing: inner.dropFirst(5))
                } catch {
                    throw SeriesTemplateError(error.description)
                }
            } else {
                throw SeriesTemplateError("{\(inner)} is not a date pattern; write {date} or {date:yyyyMMdd}")
            }
            if !literal.isEmpty {
                parts.append(.literal(literal))
                literal = ""
            }
            parts.append(.date(format))
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
            case .date(let format): text += format.format(day)
            }
        }
        return text
    }

    /// The template as written.
    public var description: String { self.text }
}

/// Why a series URL template cannot be used.
public struct SeriesTemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the template.
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// How a day is written in a URL or a request body: the tokens `yyyy` (year), `MM` (month) and
/// `dd` (day of the month), zero-padded, and characters other than letters and braces taken as
/// they are (`-`, `/`, `_`, `.`). Series URL templates (`{date:yyyyMMdd}`) and declared requests'
/// placeholders (`{{today:yyyyMMdd}}`) share it.
public struct DayFormat: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        case year
        case month
        case day
    }

    /// Why a format cannot be used.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// `yyyy-MM-dd`.
    public static let iso = DayFormat(text: "yyyy-MM-dd", parts: [.year, .literal("-"), .month, .literal("-"), .day])

    /// The format as written.
    public let text: String
    let parts: [Part]

    private init(text: String, parts: [Part]) {
        self.text = text
        self.parts = parts
    }

    /// Reads a format; the problem names it and what is wrong.
    public init(parsing format: some StringProtocol) throws(Problem) {
        var parts: [Part] = []
        var rest = Substring(format)
        guard !rest.isEmpty else { throw Problem(description: "the date format is empty; use yyyy, MM and dd") }
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
            } else if character.isLetter || character == "{" || character == "}" {
                throw Problem(
                    description: "the date format \(String(format).debugDescription) has \(String(rest).debugDescription); "
                        + "use yyyy, MM and dd with separators such as - / _ ."
                )
            } else {
                parts.append(.literal(String(character)))
                rest = rest.dropFirst()
            }
        }
        self.init(text: String(format), parts: parts)
    }

    /// `day` written in this format.
    public func format(_ day: CalendarDay) -> String {
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

    /// The format as written.
    public var description: String { self.text }
}

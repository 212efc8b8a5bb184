import Foundation

/// Text with placeholders for values that change, in a declared request's URL, header values and
/// body: `{{today}}` (the date in the request's time zone, `yyyy-MM-dd`), `{{today+1}}` and
/// `{{today-7}}` (days after or before it), any of them with a format (`{{today:yyyyMMdd}}`,
/// `{{today-1:dd/MM/yyyy}}`: `yyyy`, `MM`, `dd` are replaced), and `{{env:NAME}}` (an environment
/// variable of the Larder process, for tokens kept out of the config file). Anything else between
/// `{{` and `}}` is an error when the template is read, so a typo is found at start-up.
public struct TextTemplate: Sendable, Hashable {
    /// One piece of a template.
    enum Part: Sendable, Hashable {
        case literal(String)
        /// The day `offset` days from today, in `format`.
        case day(offset: Int, format: DayFormat)
        case environment(String)
    }

    /// What the values come from when a template is rendered.
    public struct Context: Sendable {
        public var now: Date
        public var timeZone: TimeZone
        public var environment: [String: String]

        /// A context; the environment defaults to the process's.
        public init(now: Date, timeZone: TimeZone, environment: [String: String] = ProcessInfo.processInfo.environment) {
            self.now = now
            self.timeZone = timeZone
            self.environment = environment
        }
    }

    /// Why a template cannot be read or rendered.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    let parts: [Part]

    /// Reads `text`, refusing unknown placeholders.
    public init(parsing text: String) throws(Problem) {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            if open.lowerBound > rest.startIndex {
                parts.append(.literal(String(rest[..<open.lowerBound])))
            }
            parts.append(try Self.placeholder(Substring(rest[open.upperBound..<close.lowerBound].trimmingWhitespace())))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty {
            parts.append(.literal(String(rest)))
        }
        self.parts = parts
    }

    /// The environment variables it names (`{{env:NAME}}`).
    public var environmentNames: [String] {
        self.parts.compactMap { if case .environment(let name) = $0 { name } else { nil } }
    }

    /// Whether the template names a day, so its text changes at midnight in the request's zone.
    public var usesDay: Bool {
        self.parts.contains { if case .day = $0 { true } else { false } }
    }

    /// The text with every placeholder replaced.
    public func render(_ context: Context) throws(Problem) -> String {
        var text = ""
        for part in self.parts {
            switch part {
            case .literal(let literal):
                text += literal
            case .day(let offset, let format):
                text += format.format(CalendarDay(context.now, in: context.timeZone).adding(days: offset))
            case .environment(let name):
                guard let value = context.environment[name] else {
                    throw Problem(description: "the environment variable \(name) ({{env:\(name)}}) is not set")
                }
                text += value
            }
        }
        return text
    }

    private static func placeholder(_ inside: Substring) throws(Problem) -> Part {
        if inside.hasPrefix("env:") {
            let name = inside.dropFirst(4)
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw Problem(description: "{{\(inside)}} needs an environment variable name after env:")
            }
            return .environment(String(name))
        }
        let colon = inside.firstIndex(of: ":")
        let name = inside[..<(colon ?? inside.endIndex)]
        let formatText = colon.map { inside[inside.index(after: $0)...] }
        guard name.hasPrefix("today") else {
            throw Problem(
                description:
                    "{{\(inside)}} is not a placeholder (known: {{today}}, {{today+N}}, {{today-N}}, {{today:FORMAT}}, {{env:NAME}})")
        }
        let offsetText = name.dropFirst(5)
        var offset = 0
        if !offsetText.isEmpty {
            guard let sign = offsetText.first, sign == "+" || sign == "-", let days = Int(offsetText.dropFirst()), days <= 36_500,
                offsetText.dropFirst().allSatisfy(\.isNumber)
            else {
                throw Problem(description: "{{\(inside)}}: the day offset must be +N or -N days, such as {{today-1}}")
            }
            offset = sign == "+" ? days : -days
        }
        var format = DayFormat.iso
        if let formatText {
            do {
                format = try DayFormat(parsing: formatText)
            } catch {
                throw Problem(description: "{{\(inside)}}: \(error)")
            }
        }
        return .day(offset: offset, format: format)
    }
}

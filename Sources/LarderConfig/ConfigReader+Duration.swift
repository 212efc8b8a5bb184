import LarderHTTP

extension ConfigReader {
    /// Seconds per duration unit.
    private static let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]

    /// A duration: `"1.5s"`, `"90s"`, `"15m"`, `"6h"`, `"1d"`, or a number of seconds, from
    /// `minimum` to `maximum`.
    func duration(_ value: JSONValue, at path: ConfigKeyPath, minimum: Duration, maximum: Duration) throws(ConfigFileError)
        -> Duration
    {
        let expected =
            "a duration such as \"15m\", \"6h\" or \"1d\" (or seconds), from \(Self.describe(minimum)) to \(Self.describe(maximum))"
        var seconds: Double?
        switch value.kind {
        case .number(let number):
            seconds = number.value
        case .string(let text):
            if let unit = text.last.flatMap({ Self.units[$0] }), let count = Self.decimal(text.dropLast()) {
                seconds = count * unit
            }
        default:
            break
        }
        // Compared as seconds first: a huge number would not make a Duration.
        guard let seconds, seconds.isFinite, seconds >= Self.seconds(minimum), seconds <= Self.seconds(maximum) else {
            throw self.mismatch(value, at: path, expected: expected)
        }
        // Whole milliseconds: a Duration made from a large Double is not exact.
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Digits with an optional fraction (`12`, `1.5`), without sign or exponent.
    private static func decimal(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        return Double(text)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `10 s`, `1.5 s`, `30 days` for messages.
    static func describe(_ duration: Duration) -> String {
        let seconds = Self.seconds(duration)
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 {
            let days = Int(seconds / 86_400)
            return days == 1 ? "1 day" : "\(days) days"
        }
        return seconds.rounded() == seconds ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

/// A value an app puts afresh into every request (docs/SERVING.md, "Reads whose bodies change
/// every time"): a clock reading or a random number. The one rule for what such a value looks
/// like, for query cache-busters (``OfflineMatch``) and for request bodies (``StandInBody``).
public enum ChangingValue: Sendable, Hashable {
    /// Seconds since 1970 written as 10 digits (between 2000 and 2100), a fraction allowed.
    case epochSeconds(Double)
    /// Milliseconds since 1970 written as 13 digits (between 2000 and 2100), a fraction allowed.
    case epochMilliseconds(Double)
    /// An ISO 8601 date (`2026-11-28`) or date and time (`2026-11-28T09:30:00.000Z`, an offset
    /// or none taken as UTC); the seconds since 1970 it names.
    case isoDate(Double)
    /// `Math.random()`'s output: `0.` and at least ten digits.
    case random

    /// What `text` is, or nil when it is none of the above (a small number, an id, a word).
    public init?(_ text: Substring) {
        let bytes = Array(text.utf8)
        if let seconds = Self.epoch(bytes) {
            self = seconds
        } else if let date = Self.isoSeconds(bytes) {
            self = .isoDate(date)
        } else if bytes.count >= 12, bytes[0] == UInt8(ascii: "0"), bytes[1] == UInt8(ascii: "."),
            bytes.dropFirst(2).allSatisfy(Self.isDigit)
        {
            self = .random
        } else {
            return nil
        }
    }

    /// The instant the value names, in seconds since 1970; nil for a random number.
    public var seconds: Double? {
        switch self {
        case .epochSeconds(let seconds), .isoDate(let seconds): seconds
        case .epochMilliseconds(let milliseconds): milliseconds / 1000
        case .random: nil
        }
    }

    /// Whether a value of this kind and one of `other`'s may differ as readings of the same clock
    /// (or draws of the same random source): the same kind, so seconds never stand for milliseconds.
    public func isSameKind(as other: ChangingValue) -> Bool {
        switch (self, other) {
        case (.epochSeconds, .epochSeconds), (.epochMilliseconds, .epochMilliseconds), (.isoDate, .isoDate), (.random, .random):
            true
        default:
            false
        }
    }

    /// Whether `name` (a JSON member's, a form field's or a multipart part's) is one apps give a
    /// counter, a nonce or a cache-buster, whose value changes with every request whatever it
    /// looks like: `seq`, `requestId`, `nonce`, `_`, `cb`... Case, `_` and `-` are ignored.
    public static func isCounterName(_ name: Substring) -> Bool {
        let folded = String(name.lowercased().filter { $0 != "_" && $0 != "-" })
        return Self.counterNames.contains(folded)
    }

    private static let counterNames: Set<String> = [
        "", "seq", "seqno", "seqnum", "sequence", "counter", "nonce", "requestid", "reqid", "rid", "cachebust",
        "cachebuster", "nocache", "cb", "rnd", "rand", "random", "timestamp", "ts", "now", "clienttime",
    ]

    /// The smallest and largest seconds since 1970 taken as a timestamp: 2000 to 2100.
    private static let epochRange: Range<Double> = 946_684_800..<4_102_444_800

    /// Seconds (10 digits) or milliseconds (13 digits) since 1970 in ``epochRange``, a fraction allowed.
    private static func epoch(_ bytes: [UInt8]) -> ChangingValue? {
        let whole = bytes.prefix { $0 != UInt8(ascii: ".") }
        guard whole.count == 10 || whole.count == 13, whole.allSatisfy(Self.isDigit) else { return nil }
        if whole.count < bytes.count {
            let fraction = bytes[(whole.count + 1)...]
            guard !fraction.isEmpty, fraction.allSatisfy(Self.isDigit) else { return nil }
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)) else { return nil }
        if whole.count == 10 {
            return Self.epochRange.contains(value) ? .epochSeconds(value) : nil
        }
        return Self.epochRange.contains(value / 1000) ? .epochMilliseconds(value) : nil
    }

    /// `YYYY-MM-DD`, then optionally `T` (or a space) and `HH:MM`, `:SS`, a fraction, `Z` or `±HH:MM`.
    private static func isoSeconds(_ bytes: [UInt8]) -> Double? {
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"),
            let day = reader.number(2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = Double(CivilDate.days(year: year, month: month, day: day)) * 86_400
        if reader.isAtEnd { return seconds }
        guard reader.skip("T") || reader.skip(" "), let hour = reader.number(2), reader.skip(":"), let minute = reader.number(2),
            hour < 24, minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        if reader.skip(":") {
            guard let second = reader.number(2), second < 61 else { return nil }
            seconds += Double(second)
            if reader.skip(".") || reader.skip(",") {
                guard let fraction = reader.digits(), !fraction.isEmpty else { return nil }
                seconds += Double("0." + fraction) ?? 0
            }
        }
        if reader.isAtEnd || reader.skip("Z") {
            return reader.isAtEnd ? seconds : nil
        }
        let sign: Double = reader.skip("+") ? 1 : (reader.skip("-") ? -1 : 0)
        guard sign != 0, let offsetHours = reader.number(2) else { return nil }
        _ = reader.skip(":")
        guard let offsetMinutes = reader.number(2), reader.isAtEnd else { return nil }
        return seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Reads fixed-width numbers and separators off the front of some bytes.
    private struct DigitReader {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { self.position == self.bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard self.position < self.bytes.count, self.bytes[self.position] == UInt8(ascii: character) else { return false }
            self.position += 1
            return true
        }

        mutating func number(_ width: Int) -> Int? {
            guard self.position + width <= self.bytes.count else { return nil }
            var value = 0
            for byte in self.bytes[self.position..<(self.position + width)] {
                guard ChangingValue.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            self.position += width
            return value
        }

        mutating func digits() -> String? {
            let start = self.position
            while self.position < self.bytes.count, ChangingValue.isDigit(self.bytes[self.position]) { self.position += 1 }
            return String(decoding: self.bytes[start..<self.position], as: UTF8.self)
        }
    }
}

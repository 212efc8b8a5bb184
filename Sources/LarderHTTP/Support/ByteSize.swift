/// A size in bytes as people write it: `512KB`, `1MiB`, `2GiB`, `1.5GB`, `300 kB`, `4096`.
///
/// Decimal units (`KB`, `MB`, `GB`, `TB`, powers of 1000) and binary units (`KiB`, `MiB`, `GiB`,
/// `TiB`, powers of 1024) are both accepted, case-insensitively; `K`, `M`, `G`, `T` alone are
/// binary, and `B` or no unit means bytes.
public struct ByteSize: Sendable, Hashable, CustomStringConvertible {
    /// The size in bytes.
    public let bytes: Int64

    /// A size of `bytes` bytes.
    public init(bytes: Int64) {
        self.bytes = bytes
    }

    /// Why a size did not parse.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text that did not parse.
        public var text: String
        /// What is wrong with it.
        public var problem: String

        /// `'text' is not a size: problem`.
        public var description: String {
            "'\(self.text)' is not a size: \(self.problem)"
        }
    }

    private static let units: [String: Int64] = [
        "": 1, "b": 1,
        "kb": 1000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
        "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
        "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
    ]

    /// Parses `text`; throws ``ParseError`` for a missing or malformed number, an unknown unit, or
    /// a size past `Int64`.
    public init(parsing text: String) throws {
        let trimmed = text.filter { $0 != " " && $0 != "\t" }
        let numberEnd = trimmed.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? trimmed.endIndex
        let number = trimmed[..<numberEnd]
        let unit = trimmed[numberEnd...].lowercased()
        guard !number.isEmpty else {
            throw ParseError(text: text, problem: "it must start with a number, as in 512KB, 1MiB or 2GiB")
        }
        guard let multiplier = Self.units[unit] else {
            throw ParseError(text: text, problem: "unknown unit '\(trimmed[numberEnd...])' (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)")
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int64(parts[0].isEmpty ? "0" : parts[0]) else {
            throw ParseError(text: text, problem: "'\(number)' is not a number")
        }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: multiplier)
        guard !overflow else {
            throw ParseError(text: text, problem: "it is too large")
        }
        var bytes = scaled
        if parts.count == 2 {
            // A fraction of the unit, rounded down to whole bytes.
            let digits = parts[1].prefix(12)
            guard digits.allSatisfy(\.isNumber), !(parts[0].isEmpty && digits.isEmpty),
                let fraction = Int64(digits.isEmpty ? "0" : String(digits))
            else {
                throw ParseError(text: text, problem: "'\(number)' is not a number")
            }
            var scale: Int64 = 1
            for _ in 0..<digits.count { scale *= 10 }
            let (fractional, fractionOverflow) = multiplier.multipliedReportingOverflow(by: fraction)
            guard !fractionOverflow else {
                throw ParseError(text: text, problem: "it is too precise")
            }
            let (sum, sumOverflow) = bytes.addingReportingOverflow(fractional / scale)
            guard !sumOverflow else {
                throw ParseError(text: text, problem: "it is too large")
            }
            bytes = sum
        }
        self.bytes = bytes
    }

    /// The size in the largest binary unit that keeps it readable, e.g. `2.0 GiB`, `512 B`.
    public var description: String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(self.bytes)
        var index = 0
        while value >= 1024, index < units.count - 1 {
            value /= 1024
            index += 1
        }
        if index == 0 {
            return "\(self.bytes) B"
        }
        let rounded = (value * 10).rounded() / 10
        return "\(rounded) \(units[index])"
    }
}

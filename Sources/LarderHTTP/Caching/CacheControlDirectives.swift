/// The directives of one or more `Cache-Control` field lines (RFC 9111 section 5.2).
///
/// Directive names are case-insensitive; quoted values are unquoted. When a directive
/// appears more than once the first occurrence wins, as RFC 9111 section 4.2.1 allows.
public struct CacheControlDirectives: Sendable, Hashable {
    private var directives: [String: String?] = [:]

    /// Parses the field values (each may hold several comma-separated directives).
    public init<Values: Sequence>(_ fieldValues: Values) where Values.Element == String {
        for value in fieldValues {
            for item in Self.splitList(value) {
                let trimmed = item.trimmingWhitespace()
                guard !trimmed.isEmpty else { continue }
                let name: String
                var argument: String?
                if let equals = trimmed.firstIndex(of: "=") {
                    // No whitespace around "=" (RFC 9111 section 5.2): `max-age =60` names no known
                    // directive and `max-age= 60` has an invalid argument.
                    name = String(trimmed[..<equals]).lowercased()
                    var raw = String(trimmed[trimmed.index(after: equals)...])
                    if raw.count >= 2, raw.first == "\"", raw.last == "\"" {
                        raw = String(raw.dropFirst().dropLast()).replacingBackslashEscapes()
                    }
                    argument = raw
                } else {
                    name = trimmed.lowercased()
                }
                if self.directives[name] == nil {
                    self.directives[name] = .some(argument)
                }
            }
        }
    }

    /// Whether the directive is present (with or without an argument).
    public func contains(_ name: String) -> Bool {
        self.directives[name] != nil
    }

    /// A directive's argument, nil when absent or given without one (`no-cache` vs `no-cache="Set-Cookie"`).
    public func argument(_ name: String) -> String? {
        self.directives[name] ?? nil
    }

    /// A delta-seconds argument. Present but invalid (not digits) is reported as `.invalid`
    /// so callers can apply RFC 9111's "treat as stale" rule.
    public func seconds(_ name: String) -> DeltaSeconds? {
        guard let entry = self.directives[name] else { return nil }
        guard let text = entry, let seconds = Self.deltaSeconds(text) else {
            return .invalid
        }
        return .value(seconds)
    }

    /// A delta-seconds value (RFC 9111 section 1.2.2): ASCII digits only; values too large to
    /// represent are taken as 2^31. Nil for anything else.
    public static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return min(Int(text) ?? 2_147_483_648, 2_147_483_648)
    }

    /// A parsed delta-seconds argument.
    public enum DeltaSeconds: Sendable, Hashable {
        /// A non-negative number of seconds.
        case value(Int)
        /// The directive is present but its argument is missing or not a number.
        case invalid
    }

    /// Splits a comma-separated list, keeping commas inside quoted strings.
    public static func splitList(_ value: String) -> [Substring] {
        var items: [Substring] = []
        var start = value.startIndex
        var inQuotes = false
        var escaped = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if escaped {
                escaped = false
            } else if character == "\\" && inQuotes {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == "," && !inQuotes {
                items.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        items.append(value[start...])
        return items
    }
}

extension StringProtocol {
    func replacingBackslashEscapes() -> String {
        var result = ""
        var escaped = false
        for character in self {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// A parsed JSON value and the line it starts on, keeping the distinctions manifests and the
/// config file need (boolean vs number, a number's text, member order).
public struct JSONValue: Sendable, Hashable {
    /// What a value is.
    public enum Kind: Sendable, Hashable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number, as written.
        case number(JSONNumber)
        /// A string, escapes decoded.
        case string(String)
        /// An array's elements in document order.
        case array([JSONValue])
        /// Members in document order; a repeated name keeps every occurrence (lookups take the last).
        case object([JSONMember])

        /// The type with an article, for error messages: `a string`, `an array`, `null`...
        public var typeDescription: String {
            switch self {
            case .null: return "null"
            case .bool: return "a boolean"
            case .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    /// What the value is.
    public var kind: Kind
    /// The 1-based line of the value's first character.
    public var line: Int

    /// A value of `kind` starting on `line`.
    public init(_ kind: Kind, line: Int) {
        self.kind = kind
        self.line = line
    }

    /// The value's type with an article, for error messages: `a string`, `an array`, `null`...
    public var typeDescription: String {
        self.kind.typeDescription
    }

    /// The last member named `name` of an object, or nil (also for non-objects).
    public subscript(member name: String) -> JSONValue? {
        guard case .object(let members) = self.kind else {
            return nil
        }
        return members.last { $0.name == name }?.value
    }
}

/// One `"name": value` pair of a JSON object.
public struct JSONMember: Sendable, Hashable {
    /// The member's name, escapes decoded.
    public var name: String
    /// The 1-based line of the name's opening quote.
    public var line: Int
    /// The member's value.
    public var value: JSONValue

    /// A member named `name`, written on `line`.
    public init(name: String, line: Int, value: JSONValue) {
        self.name = name
        self.line = line
        self.value = value
    }
}

/// A parsed JSON value, keeping the distinctions manifests need (boolean vs number, member order).
enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number; manifests never need its value, only that it is one.
    case number
    case string(String)
    case array([JSONValue])
    /// Members in document order; a repeated name keeps every occurrence (lookups take the last).
    case object([JSONMember])

    /// The value's type with an article, for error messages: `a string`, `an array`, `null`...
    var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The last member named `name` of an object, or nil (also for non-objects).
    subscript(member name: String) -> JSONValue? {
        guard case .object(let members) = self else {
            return nil
        }
        return members.last { $0.name == name }?.value
    }
}

/// One `"name": value` pair of a JSON object.
struct JSONMember: Sendable, Hashable {
    var name: String
    var value: JSONValue
}

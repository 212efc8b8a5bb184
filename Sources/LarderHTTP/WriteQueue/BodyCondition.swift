/// A queue route's `when`: a field of the request's JSON body that must equal a value, so that
/// GraphQL mutations sharing one URL are told apart (`{"field": "operationName", "equals": "completeGameplay"}`).
public struct BodyCondition: Sendable, Hashable {
    /// A dotted path into the body (``JSONValue/value(atPath:)``).
    public var field: String
    /// The value the field must have, compared with its ``JSONValue/scalarText``.
    public var equals: String

    /// A condition.
    public init(field: String, equals: String) {
        self.field = field
        self.equals = equals
    }

    /// Whether `body` is JSON whose field has the value (false for no body, or one that is not JSON).
    public func isMet(by body: [UInt8]?) -> Bool {
        guard let body, let document = try? JSONParser.parse(body) else { return false }
        return self.isMet(by: document)
    }

    /// Whether the parsed body's field has the value.
    public func isMet(by document: JSONValue) -> Bool {
        document.value(atPath: self.field)?.scalarText == self.equals
    }
}

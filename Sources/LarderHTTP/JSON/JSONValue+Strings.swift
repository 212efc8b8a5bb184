extension JSONValue {
    /// The value with `transform` applied to every string in it (not to member names).
    public func mappingStrings<E: Error>(_ transform: (String) throws(E) -> String) throws(E) -> JSONValue {
        switch self.kind {
        case .string(let string):
            return JSONValue(.string(try transform(string)), line: self.line)
        case .array(let elements):
            var mapped: [JSONValue] = []
            for element in elements { mapped.append(try element.mappingStrings(transform)) }
            return JSONValue(.array(mapped), line: self.line)
        case .object(let members):
            var mapped: [JSONMember] = []
            for var member in members {
                member.value = try member.value.mappingStrings(transform)
                mapped.append(member)
            }
            return JSONValue(.object(mapped), line: self.line)
        default:
            return self
        }
    }
}

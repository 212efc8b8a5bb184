import LarderHTTP

/// Reads typed settings out of a config file's JSON, making errors that name the file, the line
/// and the key path.
struct ConfigReader {
    /// The file as it was named, for messages.
    let file: String

    /// An error about the setting at `path`, on `line`.
    func error(_ message: String, at path: ConfigKeyPath, line: Int) -> ConfigFileError {
        ConfigFileError(file: self.file, line: line, keyPath: path.keyPath, message: message)
    }

    /// `expected EXPECTED but found WHAT-WAS-THERE`, on the value's line.
    func mismatch(_ value: JSONValue, at path: ConfigKeyPath, expected: String) -> ConfigFileError {
        self.error("expected \(expected) but found \(Self.found(value))", at: path, line: value.line)
    }

    /// The members of the object at `path` by name, refusing any name not in `known` and any name
    /// given twice.
    ///
    /// - Parameters:
    ///   - expected: What the object holds, for the message when the value is not an object.
    ///   - noun: What a member is, for the message about an unknown one: `a route setting`.
    func members(
        of value: JSONValue,
        at path: ConfigKeyPath,
        expected: String,
        known: [String],
        noun: String
    ) throws(ConfigFileError) -> [String: JSONMember] {
        guard case .object(let members) = value.kind else {
            throw self.mismatch(value, at: path, expected: expected)
        }
        var byName: [String: JSONMember] = [:]
        for member in members {
            let memberPath = path.appending(member: member.name)
            guard known.contains(member.name) else {
                throw self.error(
                    "not \(noun) (known: \(known.joined(separator: ", ")))",
                    at: memberPath,
                    line: member.line
                )
            }
            if let earlier = byName[member.name] {
                throw self.error("set twice; it is already set on line \(earlier.line)", at: memberPath, line: member.line)
            }
            byName[member.name] = member
        }
        return byName
    }

    /// A string.
    func string(_ value: JSONValue, at path: ConfigKeyPath, expected: String = "a string") throws(ConfigFileError) -> String {
        guard case .string(let string) = value.kind else {
            throw self.mismatch(value, at: path, expected: expected)
        }
        return string
    }

    /// A string with at least one character.
    func nonEmptyString(_ value: JSONValue, at path: ConfigKeyPath, expected: String) throws(ConfigFileError) -> String {
        let string = try self.string(value, at: path, expected: expected)
        guard !string.isEmpty else {
            throw self.mismatch(value, at: path, expected: expected)
        }
        return string
    }

    /// A boolean.
    func bool(_ value: JSONValue, at path: ConfigKeyPath) throws(ConfigFileError) -> Bool {
        guard case .bool(let bool) = value.kind else {
            throw self.mismatch(value, at: path, expected: "true or false")
        }
        return bool
    }

    /// The elements of an array.
    func elements(of value: JSONValue, at path: ConfigKeyPath, expected: String) throws(ConfigFileError) -> [JSONValue] {
        guard case .array(let elements) = value.kind else {
            throw self.mismatch(value, at: path, expected: expected)
        }
        return elements
    }

    /// An array of non-empty strings.
    ///
    /// - Parameters:
    ///   - expected: What the array holds, for the message when the value is not an array.
    ///   - each: What one element is, for the message about one that is not a non-empty string.
    func strings(_ value: JSONValue, at path: ConfigKeyPath, expected: String, each: String) throws(ConfigFileError) -> [String] {
        let elements = try self.elements(of: value, at: path, expected: expected)
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            strings.append(try self.nonEmptyString(element, at: path.appending(index: index), expected: each))
        }
        return strings
    }

    /// What a value is, for `but found ...`: strings and numbers as written, `true`, `null`,
    /// `an array`, `an object`.
    static func found(_ value: JSONValue) -> String {
        switch value.kind {
        case .null: return "null"
        case .bool(let bool): return bool ? "true" : "false"
        case .number(let number): return number.text
        case .string(let string): return string.debugDescription
        case .array, .object: return value.typeDescription
        }
    }
}

/// Where a setting sits in the config file, written as in JavaScript: `routes[1].strategy`.
struct ConfigKeyPath: Sendable, Hashable {
    /// The document itself.
    static let root = ConfigKeyPath(text: "")

    private let text: String

    private init(text: String) {
        self.text = text
    }

    /// The path of member `name` of the object at this path; names that are not identifiers are
    /// quoted (`["my key"]`).
    func appending(member name: String) -> ConfigKeyPath {
        guard Self.isIdentifier(name) else {
            return ConfigKeyPath(text: self.text + "[\(name.debugDescription)]")
        }
        return ConfigKeyPath(text: self.text.isEmpty ? name : self.text + "." + name)
    }

    /// The path of element `index` of the array at this path.
    func appending(index: Int) -> ConfigKeyPath {
        ConfigKeyPath(text: self.text + "[\(index)]")
    }

    /// The path, or nil for the document itself.
    var keyPath: String? {
        self.text.isEmpty ? nil : self.text
    }

    /// ASCII letters, digits, `_` and `$`, not starting with a digit (so `$schema` reads as itself).
    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"):
                return true
            default:
                return false
            }
        }
    }
}

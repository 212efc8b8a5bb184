/// Why a config file was refused: the file, where in it, the setting, and what is wrong.
public struct ConfigFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as it was named, e.g. `larder.json`.
    public var file: String
    /// The 1-based line of the problem (nil when the file could not be read).
    public var line: Int?
    /// The 1-based column, for JSON syntax errors.
    public var column: Int?
    /// The setting at fault, e.g. `routes[1].strategy` (nil for the file as a whole).
    public var keyPath: String?
    /// What is wrong, e.g. `expected a boolean but found "yes"`.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int?, column: Int? = nil, keyPath: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// `larder.json:7: routes[1].strategy: expected ...`, as compilers write their errors.
    public var description: String {
        var text = self.file
        if let line = self.line {
            text += ":\(line)"
            if let column = self.column {
                text += ":\(column)"
            }
        }
        text += ": "
        if let keyPath = self.keyPath {
            text += "\(keyPath): "
        }
        return text + self.message
    }
}

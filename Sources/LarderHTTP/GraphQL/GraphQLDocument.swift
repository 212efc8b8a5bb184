/// A GraphQL query document as far as its cache key needs it: its normalised text and the type of
/// each operation it defines.
///
/// Normalisation: `#` comments outside strings are removed; runs of whitespace and commas (which
/// are insignificant in GraphQL) outside strings and block strings become one space; spaces next
/// to punctuators (`{ } ( ) [ ] : = @ $ ! | &` and `...`) are dropped; the ends are trimmed.
/// Strings and block strings are kept as written.
struct GraphQLDocument {
    /// The normalised text.
    let normalized: String
    /// The operations defined, in order: `query`, `mutation` or `subscription`, and the name if any.
    let operations: [(type: String, name: String?)]

    init(_ text: String) {
        var lexer = Lexer(Array(text.utf8))
        lexer.run()
        self.normalized = String(decoding: lexer.output, as: UTF8.self)
        self.operations = Self.operations(lexer.tokens)
    }

    /// Whether the operation a request selects (by `operationName`, or the only one) is a query:
    /// false for a mutation or subscription, and when the selection names no single operation.
    func isRead(operationName: String?) -> Bool {
        let selected = operationName.map { name in self.operations.filter { $0.name == name } } ?? self.operations
        guard selected.count == 1 else { return false }
        return selected[0].type == "query"
    }

    /// A token outside strings, for finding operations.
    fileprivate enum Token: Equatable {
        case name(String)
        case punctuator(UInt8)
        /// A string, a number or anything else.
        case other
    }

    /// The operation definitions at the document's top level (outside braces, parentheses and brackets).
    private static func operations(_ tokens: [Token]) -> [(type: String, name: String?)] {
        var operations: [(type: String, name: String?)] = []
        var depth = 0
        var keyword: String?
        var name: String?
        var afterAt = false
        for token in tokens {
            switch token {
            case .punctuator(let byte) where byte == UInt8(ascii: "{") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: "["):
                if depth == 0, byte == UInt8(ascii: "{") {
                    // The selection set starts the definition's body: `{ ... }` alone is a query.
                    let type = keyword ?? "query"
                    if ["query", "mutation", "subscription"].contains(type) {
                        operations.append((type, name))
                    }
                    keyword = nil
                    name = nil
                }
                depth += 1
            case .punctuator(let byte) where byte == UInt8(ascii: "}") || byte == UInt8(ascii: ")") || byte == UInt8(ascii: "]"):
                depth = max(0, depth - 1)
            case .punctuator(let byte):
                afterAt = depth == 0 && byte == UInt8(ascii: "@")
                continue
            case .name(let word) where depth == 0:
                if afterAt {
                    // A directive's name, not the operation's.
                } else if keyword == nil {
                    keyword = word
                } else if name == nil {
                    name = word
                }
            case .name, .other:
                break
            }
            afterAt = false
        }
        return operations
    }

    /// One pass over the text: the normalised output and the tokens outside strings.
    private struct Lexer {
        let input: [UInt8]
        var index = 0
        var output: [UInt8] = []
        var tokens: [Token] = []
        var pendingSpace = false
        var lastWasPunctuator = false

        init(_ input: [UInt8]) {
            self.input = input
        }

        mutating func run() {
            while self.index < self.input.count {
                let byte = self.input[self.index]
                switch byte {
                case UInt8(ascii: "#"):
                    while self.index < self.input.count, self.input[self.index] != 0x0A, self.input[self.index] != 0x0D {
                        self.index += 1
                    }
                    self.pendingSpace = true
                case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","):
                    self.index += 1
                    self.pendingSpace = true
                case 0xEF where self.input[self.index...].starts(with: [0xEF, 0xBB, 0xBF]):
                    // A byte order mark is ignored like whitespace.
                    self.index += 3
                    self.pendingSpace = true
                case UInt8(ascii: "\""):
                    self.emit(self.string(), punctuator: false)
                    self.tokens.append(.other)
                case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
                    UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: "$"), UInt8(ascii: "!"), UInt8(ascii: "|"),
                    UInt8(ascii: "&"), UInt8(ascii: "."):
                    self.index += 1
                    self.emit([byte], punctuator: true)
                    self.tokens.append(.punctuator(byte))
                default:
                    let start = self.index
                    while self.index < self.input.count, Self.isNameByte(self.input[self.index]) {
                        self.index += 1
                    }
                    if self.index == start {
                        self.index += 1
                        self.tokens.append(.other)
                    } else {
                        let word = self.input[start..<self.index]
                        let isName =
                            word.first.map { !($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) && $0 != UInt8(ascii: "-") } ?? false
                        self.tokens.append(isName ? .name(String(decoding: word, as: UTF8.self)) : .other)
                    }
                    self.emit(Array(self.input[start..<self.index]), punctuator: false)
                }
            }
        }

        /// A string or block string from its opening quote, as written.
        private mutating func string() -> [UInt8] {
            let start = self.index
            let quote = UInt8(ascii: "\"")
            let isBlock = self.input[self.index...].starts(with: [quote, quote, quote])
            self.index += isBlock ? 3 : 1
            while self.index < self.input.count {
                let byte = self.input[self.index]
                if isBlock {
                    if self.input[self.index...].starts(with: Array("\\\"\"\"".utf8)) {
                        self.index += 4
                    } else if self.input[self.index...].starts(with: [quote, quote, quote]) {
                        self.index += 3
                        break
                    } else {
                        self.index += 1
                    }
                } else if byte == UInt8(ascii: "\\") {
                    self.index += 2
                } else {
                    self.index += 1
                    if byte == quote { break }
                }
            }
            self.index = min(self.index, self.input.count)
            return Array(self.input[start..<self.index])
        }

        private mutating func emit(_ bytes: [UInt8], punctuator: Bool) {
            if self.pendingSpace, !self.output.isEmpty, !punctuator, !self.lastWasPunctuator {
                self.output.append(0x20)
            }
            self.pendingSpace = false
            self.output += bytes
            self.lastWasPunctuator = punctuator
        }

        private static func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "+")
        }
    }
}

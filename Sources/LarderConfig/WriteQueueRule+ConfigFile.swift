import LarderHTTP

extension WriteQueueRule {
    /// The settings a `queue.routes` entry may have.
    static let configKeys = [
        "match", "regex", "methods", "when", "supersedeKey", "supersedeAnyContentType", "group", "terminal", "queueOn5xx", "answer",
        "pageOrigins",
    ]
    /// Methods that read, never write: a queue route may not name them.
    static let readingMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "CONNECT"]

    /// Reads the `queue.routes` entry at `path`: exactly one of `match` and `regex`, and optionally
    /// the rest (docs/SERVING.md, "Queued writes").
    init(configValue value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) {
        let members = try reader.members(
            of: value, at: path, expected: "a queue route object", known: Self.configKeys, noun: "a queue route setting")
        let pattern = try CacheRoute.pattern(members, of: value, at: path, reader: reader)
        self.init(pattern: pattern)
        if let member = members["methods"] {
            self.methods = try Self.methods(member.value, at: path.appending(member: "methods"), reader: reader)
        }
        if let member = members["when"] {
            self.when = try Self.condition(member.value, at: path.appending(member: "when"), reader: reader)
        }
        if let member = members["supersedeKey"] {
            self.supersedeKey = try Self.supersedeKey(
                member.value, pattern: pattern, at: path.appending(member: "supersedeKey"), reader: reader)
        }
        if let member = members["group"] {
            self.group = try reader.nonEmptyString(member.value, at: path.appending(member: "group"), expected: "a group name")
        }
        if let member = members["terminal"] {
            self.terminal = try reader.bool(member.value, at: path.appending(member: "terminal"))
            if self.terminal, self.supersedeKey == nil {
                throw reader.error(
                    "a terminal write supersedes writes with its supersedeKey; give the route a supersedeKey",
                    at: path.appending(member: "terminal"), line: member.value.line)
            }
        }
        if let member = members["queueOn5xx"] {
            self.queueOn5xx = try reader.bool(member.value, at: path.appending(member: "queueOn5xx"))
        }
        if let member = members["answer"] {
            self.answer = try Self.answer(member.value, at: path.appending(member: "answer"), reader: reader)
        }
        if let member = members["pageOrigins"] {
            self.pageOrigins = Set(try reader.origins(member.value, at: path.appending(member: "pageOrigins")))
        }
        if let member = members["supersedeAnyContentType"] {
            self.supersedeAnyContentType = try reader.bool(member.value, at: path.appending(member: "supersedeAnyContentType"))
        }
    }

    /// A non-empty array of methods that write (upper-cased).
    private static func methods(_ value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) -> Set<String> {
        let expected = "a non-empty array of methods such as \"POST\" or \"PATCH\""
        let elements = try reader.elements(of: value, at: path, expected: expected)
        guard !elements.isEmpty else { throw reader.mismatch(value, at: path, expected: expected) }
        var methods: Set<String> = []
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index: index)
            let method = try reader.nonEmptyString(element, at: elementPath, expected: "a method such as \"POST\"").uppercased()
            guard method.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
                throw reader.mismatch(element, at: elementPath, expected: "a method such as \"POST\"")
            }
            guard !Self.readingMethods.contains(method) else {
                throw reader.error("\(method) reads, it does not write; only writes are queued", at: elementPath, line: element.line)
            }
            methods.insert(method)
        }
        return methods
    }

    /// `{"field": "operationName", "equals": "completeGameplay"}`.
    private static func condition(_ value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError)
        -> BodyCondition
    {
        let members = try reader.members(
            of: value, at: path, expected: "a condition such as {\"field\": \"operationName\", \"equals\": \"completeGameplay\"}",
            known: ["field", "equals"], noun: "a condition setting")
        guard let field = members["field"], let equals = members["equals"] else {
            throw reader.error("needs field (a dotted path into the JSON body) and equals (its value)", at: path, line: value.line)
        }
        let fieldPath = try Self.fieldPath(field.value, at: path.appending(member: "field"), reader: reader)
        guard let text = equals.value.scalarText else {
            throw reader.mismatch(equals.value, at: path.appending(member: "equals"), expected: "a string, number or boolean")
        }
        return BodyCondition(field: fieldPath, equals: text)
    }

    /// A dotted path into a JSON body: names separated by single dots.
    private static func fieldPath(_ value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) -> String {
        let expected = "a dotted path into the JSON body, such as \"variables.gameplayID\""
        let text = try reader.nonEmptyString(value, at: path, expected: expected)
        guard !text.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            throw reader.mismatch(value, at: path, expected: expected)
        }
        return text
    }

    /// `{"capture": 1}` (a regex route's group), `{"json": "variables.gameplayID"}` or `{"header": "X-Game"}`.
    private static func supersedeKey(_ value: JSONValue, pattern: CacheRoute.Pattern, at path: ConfigKeyPath, reader: ConfigReader)
        throws(ConfigFileError) -> SupersedeKey
    {
        let expected = "one of {\"capture\": 1}, {\"json\": \"variables.id\"} or {\"header\": \"X-Game\"}"
        let members = try reader.members(
            of: value, at: path, expected: expected, known: ["capture", "json", "header"], noun: "a supersede key")
        guard members.count == 1, let (name, member) = members.first.map({ ($0.key, $0.value) }) else {
            throw reader.error("give exactly one of capture, json and header", at: path, line: value.line)
        }
        let memberPath = path.appending(member: name)
        switch name {
        case "capture":
            guard case .regex = pattern else {
                throw reader.error(
                    "capture takes a group of the route's regex; this route has match, not regex", at: memberPath, line: member.line)
            }
            let count = pattern.captureCount
            guard case .number(let number) = member.value.kind, let group = number.integerValue, group >= 1, group <= Int64(count) else {
                let groups = count == 0 ? "the regex has no capture group" : "from 1 to \(count), the regex's capture groups"
                throw reader.mismatch(member.value, at: memberPath, expected: "a capture group number (\(groups))")
            }
            return .capture(Int(group))
        case "json":
            return .jsonField(try Self.fieldPath(member.value, at: memberPath, reader: reader))
        default:
            let expected = "a header name such as \"X-Game\""
            let header = try reader.nonEmptyString(member.value, at: memberPath, expected: expected)
            guard header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
                throw reader.mismatch(member.value, at: memberPath, expected: expected)
            }
            return .header(header)
        }
    }

    /// `{"status": 202, "body": any JSON or a string, "contentType": "..."}`.
    private static func answer(_ value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) -> QueuedAnswer {
        let members = try reader.members(
            of: value, at: path, expected: "an answer object such as {\"status\": 202}", known: ["status", "body", "contentType"],
            noun: "an answer setting")
        var answer = QueuedAnswer.accepted
        if let member = members["status"] {
            guard case .number(let number) = member.value.kind, let status = number.integerValue, (200...299).contains(status) else {
                throw reader.mismatch(member.value, at: path.appending(member: "status"), expected: "a 2xx status such as 202")
            }
            answer.status = Int(status)
        }
        if let member = members["body"] {
            guard !QueuedAnswer.bodilessStatuses.contains(answer.status) else {
                throw reader.error("a \(answer.status) answer has no body", at: path.appending(member: "body"), line: member.value.line)
            }
            if case .string(let text) = member.value.kind {
                answer.body = text
                answer.contentType = "text/plain; charset=utf-8"
            } else {
                answer.body = String(decoding: CanonicalJSON.bytes(of: member.value), as: UTF8.self)
            }
        }
        if let member = members["contentType"] {
            answer.contentType = try reader.nonEmptyString(
                member.value, at: path.appending(member: "contentType"), expected: "a media type such as \"application/json\"")
        }
        return answer
    }
}

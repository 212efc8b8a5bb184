import Foundation
import LarderHTTP

extension DeclaredRequest {
    /// The settings a `requests` entry may have.
    static let configKeys = [
        "name", "method", "url", "headers", "body", "bodyText", "bodyFile", "bodyKey", "timeZone", "schedule", "pageOrigins",
    ]
    /// The settings of a `schedule`.
    static let scheduleKeys = ["every", "at", "jitter"]
    /// The shortest `every` accepted, so a typo cannot make Larder hammer an origin.
    static let minimumEvery = Duration.seconds(10)
    /// The longest `every` or `jitter` accepted: 30 days.
    static let maximumEvery = Duration.seconds(30 * 86_400)

    /// Reads the `requests` entry at `path`. `directory` is where a relative `bodyFile` is found:
    /// the config file's folder.
    init(configValue value: JSONValue, at path: ConfigKeyPath, directory: String, reader: ConfigReader) throws(ConfigFileError) {
        let members = try reader.members(
            of: value, at: path, expected: "a declared request object", known: Self.configKeys, noun: "a declared request setting")
        guard let nameMember = members["name"] else {
            throw reader.error("needs a name (letters, digits, '.', '_' or '-')", at: path, line: value.line)
        }
        let namePath = path.appending(member: "name")
        let name = try reader.nonEmptyString(nameMember.value, at: namePath, expected: "a name of letters, digits, '.', '_' or '-'")
        guard name.utf8.count <= 100, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            throw reader.mismatch(nameMember.value, at: namePath, expected: "a name of at most 100 letters, digits, '.', '_' or '-'")
        }

        guard let urlMember = members["url"] else {
            throw reader.error("needs a url", at: path, line: value.line)
        }
        let url = try Self.template(urlMember.value, at: path.appending(member: "url"), expected: "an http(s) URL", reader: reader)

        var headers: [Header] = []
        if let member = members["headers"] {
            let headersPath = path.appending(member: "headers")
            guard case .object(let fields) = member.value.kind else {
                throw reader.mismatch(member.value, at: headersPath, expected: "an object of header names and values")
            }
            for field in fields {
                let fieldPath = headersPath.appending(member: field.name)
                guard !field.name.isEmpty, field.name.utf8.allSatisfy(Self.isTokenByte) else {
                    throw reader.error("is not a header name", at: fieldPath, line: field.line)
                }
                guard !HopByHopHeaders.names.contains(field.name.lowercased()),
                    !["host", "content-length"].contains(field.name.lowercased())
                else {
                    throw reader.error("is set by Larder itself and may not be declared", at: fieldPath, line: field.line)
                }
                let template = try Self.template(field.value, at: fieldPath, expected: "a header value", reader: reader)
                headers.append(Header(name: field.name, value: template))
            }
        }

        let body = try Self.body(members, at: path, directory: directory, reader: reader)
        var method = body == nil ? "GET" : "POST"
        if let member = members["method"] {
            let methodPath = path.appending(member: "method")
            let expected = "an HTTP method such as \"GET\" or \"POST\""
            let text = try reader.nonEmptyString(member.value, at: methodPath, expected: expected)
            guard text.utf8.allSatisfy(Self.isTokenByte) else { throw reader.mismatch(member.value, at: methodPath, expected: expected) }
            method = text.uppercased()
            guard ["GET", "POST", "QUERY"].contains(method) else {
                throw reader.error(
                    "\(text) is not a method Larder keeps fresh (GET, POST or QUERY: a declared request reads, never writes)",
                    at: methodPath, line: member.value.line)
            }
        }
        if method == "GET", body != nil {
            throw reader.error("a GET request has no body; set method to POST, or remove the body", at: path, line: value.line)
        }

        var bodyKey = Self.defaultBodyKey(body)
        if let member = members["bodyKey"] {
            let keyPath = path.appending(member: "bodyKey")
            let expected = "one of " + BodyKey.allCases.map(\.rawValue).joined(separator: ", ")
            guard let chosen = BodyKey(rawValue: try reader.string(member.value, at: keyPath, expected: expected)) else {
                throw reader.mismatch(member.value, at: keyPath, expected: expected)
            }
            bodyKey = chosen
        }

        var timeZone = TimeZone.current
        if let member = members["timeZone"] {
            let zonePath = path.appending(member: "timeZone")
            let expected = "an IANA time zone such as \"America/New_York\" or \"UTC\""
            guard let zone = TimeZone(identifier: try reader.nonEmptyString(member.value, at: zonePath, expected: expected)) else {
                throw reader.mismatch(member.value, at: zonePath, expected: expected)
            }
            timeZone = zone
        }

        var schedule = RequestSchedule()
        if let member = members["schedule"] {
            schedule = try Self.schedule(member.value, at: path.appending(member: "schedule"), reader: reader)
        }

        var pageOrigins: [String] = []
        if let member = members["pageOrigins"] {
            pageOrigins = try reader.origins(member.value, at: path.appending(member: "pageOrigins"))
        }

        self.init(
            name: name, method: method, url: url, headers: headers, body: body, bodyKey: bodyKey, schedule: schedule, timeZone: timeZone,
            pageOrigins: pageOrigins)

        // Found now, not at the first run: a URL that does not parse, a body the key cannot read.
        let context = TextTemplate.Context(now: Date(), timeZone: timeZone)
        do {
            _ = try self.resolve(context) { path in
                guard let data = FileManager.default.contents(atPath: path) else { throw DeclaredRequest.Problem("no readable file there") }
                return [UInt8](data)
            }
        } catch {
            // An unset environment variable may be set by the time it runs; everything else is a mistake in the file.
            if !error.description.contains("environment variable") {
                throw reader.error(error.description, at: path, line: value.line)
            }
        }
    }

    /// The key a body gets unless `bodyKey` says: `graphql` for a GraphQL request object, `json`
    /// for other JSON, `exact` for text.
    static func defaultBodyKey(_ body: Body?) -> BodyKey {
        switch body {
        case .json(let value):
            if case .string = value[member: "query"]?.kind { return .graphql }
            return .json
        case .file(let path) where path.lowercased().hasSuffix(".json"):
            return .json
        case .text, .file, nil:
            return .exact
        }
    }

    /// The one of `body`, `bodyText` and `bodyFile` given, if any.
    private static func body(_ members: [String: JSONMember], at path: ConfigKeyPath, directory: String, reader: ConfigReader)
        throws(ConfigFileError) -> Body?
    {
        let given = ["body", "bodyText", "bodyFile"].compactMap { name in members[name].map { (name, $0) } }
        guard let (name, member) = given.first else { return nil }
        if given.count > 1 {
            throw reader.error(
                "has \(given.map(\.0).joined(separator: " and ")); give one body", at: path, line: given.map(\.1.line).max() ?? 0)
        }
        let memberPath = path.appending(member: name)
        switch name {
        case "body":
            // Every string in it must be a valid template.
            var problem: TextTemplate.Problem?
            _ = member.value.mappingStrings { string in
                do throws(TextTemplate.Problem) {
                    _ = try TextTemplate(parsing: string)
                } catch {
                    problem = problem ?? error
                }
                return string
            }
            if let problem {
                throw reader.error(problem.description, at: memberPath, line: member.value.line)
            }
            return .json(member.value)
        case "bodyText":
            return .text(try Self.template(member.value, at: memberPath, expected: "the body's text", reader: reader))
        default:
            let file = try reader.nonEmptyString(member.value, at: memberPath, expected: "a file path (relative to the config file)")
            let absolute = file.hasPrefix("/") ? file : (directory as NSString).appendingPathComponent(file)
            guard FileManager.default.isReadableFile(atPath: absolute) else {
                throw reader.error("no readable file at \(absolute)", at: memberPath, line: member.value.line)
            }
            return .file(path: absolute)
        }
    }

    private static func schedule(_ value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError)
        -> RequestSchedule
    {
        let members = try reader.members(
            of: value, at: path, expected: "a schedule object ({\"every\": \"1h\"})", known: Self.scheduleKeys, noun: "a schedule setting")
        var schedule = RequestSchedule()
        if let member = members["every"] {
            schedule.every = try reader.duration(
                member.value, at: path.appending(member: "every"), minimum: Self.minimumEvery, maximum: Self.maximumEvery)
        }
        if let member = members["at"] {
            let atPath = path.appending(member: "at")
            let expected = "a time of day, \"HH:MM\" (24-hour)"
            guard let time = RequestSchedule.TimeOfDay(parsing: try reader.string(member.value, at: atPath, expected: expected)) else {
                throw reader.mismatch(member.value, at: atPath, expected: expected)
            }
            schedule.at = time
            if members["every"] == nil {
                schedule.every = .seconds(86_400)
            }
        }
        if let member = members["jitter"] {
            schedule.jitter = try reader.duration(
                member.value, at: path.appending(member: "jitter"), minimum: .zero, maximum: Self.maximumEvery)
        }
        return schedule
    }

    private static func template(_ value: JSONValue, at path: ConfigKeyPath, expected: String, reader: ConfigReader)
        throws(ConfigFileError) -> TextTemplate
    {
        let text = try reader.nonEmptyString(value, at: path, expected: expected)
        do {
            return try TextTemplate(parsing: text)
        } catch {
            throw reader.error(error.description, at: path, line: value.line)
        }
    }

    /// An HTTP token character (RFC 9110 section 5.6.2).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

import Foundation

/// A request the config declares (`requests`): one an app needs answered offline that is not a
/// file, such as a today page's GraphQL `POST`. Larder runs it at start-up and on its schedule,
/// stores the answer under the request's key (``CacheKey/keyed(method:bodyKey:digest:)`` for one
/// with a body), and answers the app's matching request with it when the origin cannot.
public struct DeclaredRequest: Sendable {
    /// Where the body comes from.
    public enum Body: Sendable {
        /// Inline JSON; placeholders are replaced in its strings.
        case json(JSONValue)
        /// Inline text.
        case text(TextTemplate)
        /// A file, read at every run (so a changed query needs no restart); placeholders are
        /// replaced in its text. The path is absolute (the config reader resolves it).
        case file(path: String)
    }

    /// A header whose value may hold placeholders.
    public struct Header: Sendable {
        public var name: String
        public var value: TextTemplate

        public init(name: String, value: TextTemplate) {
            self.name = name
            self.value = value
        }
    }

    /// The request made concrete for one run.
    public struct Resolved: Sendable {
        public var url: HTTPURL
        public var headers: [HeaderField]
        public var body: [UInt8]?
        /// Where its answer is stored.
        public var key: CacheKey
    }

    /// Why a request cannot be made concrete (an unset variable, an unreadable file...).
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String

        public init(_ description: String) {
            self.description = description
        }
    }

    /// The name that identifies it on /dev/offline and in `larder status`.
    public var name: String
    /// The method, upper-case.
    public var method: String
    public var url: TextTemplate
    public var headers: [Header]
    public var body: Body?
    /// How its body is keyed; also how the app's requests are matched to it.
    public var bodyKey: BodyKey
    public var schedule: RequestSchedule
    /// The zone "today" is taken in.
    public var timeZone: TimeZone
    /// Canonical origins (``HTTPURL/canonicalOrigin(_:)``) of the user's pages that may be
    /// answered with its answer although they do not carry the credentials it adds
    /// (``DeclaredAnswerAccess``).
    public var pageOrigins: [String]

    /// A declared request.
    public init(
        name: String,
        method: String,
        url: TextTemplate,
        headers: [Header] = [],
        body: Body? = nil,
        bodyKey: BodyKey,
        schedule: RequestSchedule = RequestSchedule(),
        timeZone: TimeZone,
        pageOrigins: [String] = []
    ) {
        self.pageOrigins = pageOrigins
        self.name = name
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyKey = bodyKey
        self.schedule = schedule
        self.timeZone = timeZone
    }

    /// Whether its URL or headers name a day (a file body is not looked into), so that its
    /// answer changes at midnight in its zone.
    public var usesDay: Bool {
        if self.url.usesDay || self.headers.contains(where: { $0.value.usesDay }) {
            return true
        }
        switch self.body {
        case .text(let template): return template.usesDay
        case .json(let value):
            var found = false
            _ = value.mappingStrings { string in
                found = found || ((try? TextTemplate(parsing: string))?.usesDay ?? false)
                return string
            }
            return found
        case .file: return true
        case nil: return false
        }
    }

    /// The environment variables its URL, headers and inline body name (`{{env:NAME}}`), whose
    /// values what Larder shows never carries (``SubstitutedSecrets``); a body file is read at
    /// each run and not looked into.
    public var environmentNames: [String] {
        var names = self.url.environmentNames + self.headers.flatMap(\.value.environmentNames)
        switch self.body {
        case .text(let template): names += template.environmentNames
        case .json(let value):
            _ = value.mappingStrings { string in
                names += (try? TextTemplate(parsing: string))?.environmentNames ?? []
                return string
            }
        case .file, nil: break
        }
        return names
    }

    /// The GraphQL operation its inline JSON body names (`operationName`), for a request keyed as
    /// GraphQL: what makes it a template the app's own query can replace (``LearnedQuery``).
    public var operationName: String? {
        guard self.bodyKey == .graphql, case .json(let value) = self.body, case .string(let name)? = value[member: "operationName"]?.kind,
            !name.isEmpty
        else { return nil }
        return name
    }

    /// The request as sent at `context.now`: placeholders replaced, the body read and keyed.
    /// - Parameters:
    ///   - learnedBody: the app's own version of its body (``LearnedQuery``), sent instead of
    ///     the config's inline JSON body.
    ///   - readFile: reads a body file whole.
    public func resolve(
        _ context: TextTemplate.Context,
        queryFilter: QueryParameterFilter = .default,
        learnedBody: JSONValue? = nil,
        readFile: (String) throws -> [UInt8]
    ) throws(Problem) -> Resolved {
        let url = try self.resolvedURL(context)
        var headers: [HeaderField] = []
        for header in self.headers {
            do {
                headers.append(HeaderField(name: header.name, value: try header.value.render(context)))
            } catch {
                throw Problem("header \(header.name): \(error)")
            }
        }
        var body: [UInt8]?
        switch learnedBody.map({ .json($0) }) ?? self.body {
        case .json(let value):
            do {
                let rendered = try value.mappingStrings { (string: String) throws(TextTemplate.Problem) -> String in
                    try TextTemplate(parsing: string).render(context)
                }
                body = CanonicalJSON.bytes(of: rendered)
            } catch {
                throw Problem("body: \(error)")
            }
            if !headers.contains(where: { $0.hasName("content-type") }) {
                headers.append(HeaderField(name: "Content-Type", value: "application/json"))
            }
        case .text(let template):
            do {
                body = Array(try template.render(context).utf8)
            } catch {
                throw Problem("body: \(error)")
            }
        case .file(let path):
            let bytes: [UInt8]
            do {
                bytes = try readFile(path)
            } catch {
                throw Problem("cannot read the body file \(path): \(error)")
            }
            do {
                body = Array(try TextTemplate(parsing: String(decoding: bytes, as: UTF8.self)).render(context).utf8)
            } catch {
                throw Problem("the body file \(path): \(error)")
            }
        case nil:
            break
        }
        guard let body else {
            // A GraphQL GET form is keyed as the proxy keys the app's (``BodyKey/graphQLDigest(queryOf:)``).
            if self.bodyKey == .graphql, self.method == "GET" {
                guard url.hasGraphQLQuery, let digest = BodyKey.graphQLDigest(queryOf: url) else {
                    throw Problem("bodyKey graphql on a GET needs a query parameter holding a GraphQL query that is not a mutation")
                }
                let urlKey = CacheKey(url: url.withoutGraphQLParameters, filter: queryFilter)
                return Resolved(url: url, headers: headers, body: nil, key: urlKey.keyed(method: "GET", bodyKey: .graphql, digest: digest))
            }
            return Resolved(url: url, headers: headers, body: nil, key: CacheKey(url: url, filter: queryFilter))
        }
        let urlKey = CacheKey(url: url, filter: queryFilter)
        if body.count > BodyKey.maximumBodySize {
            throw Problem("the body is \(body.count) bytes; a keyed body may be at most \(BodyKey.maximumBodySize)")
        }
        guard let digest = self.bodyKey.digest(of: body) else {
            throw Problem("the body cannot be keyed as \(self.bodyKey.rawValue) (\(Self.keyRequirement(self.bodyKey)))")
        }
        return Resolved(
            url: url, headers: headers, body: body, key: urlKey.keyed(method: self.method, bodyKey: self.bodyKey, digest: digest))
    }

    /// Its URL at `context.now`, placeholders replaced.
    public func resolvedURL(_ context: TextTemplate.Context) throws(Problem) -> HTTPURL {
        let text: String
        do {
            text = try self.url.render(context)
        } catch {
            throw Problem("url: \(error)")
        }
        do {
            return try HTTPURL(parsing: text)
        } catch {
            throw Problem("url \(text): \(error)")
        }
    }

    /// What a body must be for `bodyKey`, for messages.
    static func keyRequirement(_ bodyKey: BodyKey) -> String {
        switch bodyKey {
        case .exact: return "any bytes"
        case .json: return "it must be JSON"
        case .graphql: return "it must be a GraphQL request object with a query that is not a mutation"
        }
    }
}

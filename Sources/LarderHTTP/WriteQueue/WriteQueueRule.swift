/// One `queue.routes` entry of the config: which writes are queued when the origin cannot answer,
/// what replaces what among them, and what the client is told (docs/SERVING.md, "Queued writes").
public struct WriteQueueRule: Sendable {
    /// The methods queued when a rule names none.
    public static let defaultMethods: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]

    /// Which URLs: a glob or regex over the URL's cache key, as `routes` entries match.
    public var pattern: CacheRoute.Pattern
    /// Which methods, upper-case.
    public var methods: Set<String>
    /// A field of the JSON body that must have a value (nil: any body).
    public var when: BodyCondition?
    /// What identifies "the same thing" (nil: writes on this route never supersede).
    public var supersedeKey: SupersedeKey?
    /// A name shared by the routes whose writes supersede one another (nil: the URL's origin).
    public var group: String?
    /// A completion: it supersedes pending non-terminal writes with the same key and is never
    /// superseded itself.
    public var terminal: Bool
    /// Whether a 5xx answer is queued rather than relayed.
    public var queueOn5xx: Bool
    /// What the client gets when its write is queued.
    public var answer: QueuedAnswer
    /// `pageOrigins`: origins of pages on another site that may queue writes here, normalised
    /// (``HTTPURL/canonicalOrigin(_:)``); the URL's own origin and site always may (``WriteSource``).
    public var pageOrigins: Set<String>
    /// `supersedeAnyContentType`: whether a `json` supersede key is read from a body whatever its
    /// `Content-Type` says; by default only from one sent as JSON (``JSONMediaType``).
    public var supersedeAnyContentType: Bool

    /// A rule.
    public init(
        pattern: CacheRoute.Pattern,
        methods: Set<String> = Self.defaultMethods,
        when: BodyCondition? = nil,
        supersedeKey: SupersedeKey? = nil,
        group: String? = nil,
        terminal: Bool = false,
        queueOn5xx: Bool = false,
        answer: QueuedAnswer = .accepted,
        pageOrigins: Set<String> = [],
        supersedeAnyContentType: Bool = false
    ) {
        self.pattern = pattern
        self.methods = methods
        self.when = when
        self.supersedeKey = supersedeKey
        self.group = group
        self.terminal = terminal
        self.queueOn5xx = queueOn5xx
        self.answer = answer
        self.pageOrigins = pageOrigins
        self.supersedeAnyContentType = supersedeAnyContentType
    }

    /// Whether a request with `method` for the URL with `key` and this body is queued by this rule.
    public func matches(method: String, key: CacheKey, body: [UInt8]?) -> Bool {
        guard self.methods.contains(method), self.pattern.matches(key) else { return false }
        return self.when?.isMet(by: body) ?? true
    }

    /// The supersede key of a request: `<group or origin>\u{0}<value>`, nil when the rule has no
    /// `supersedeKey` or the request lacks the value (such a write never supersedes, nor is
    /// superseded). A capture is taken from the cache key `filter` makes of `url`; a JSON field
    /// only from a body whose `Content-Type` says JSON, unless ``supersedeAnyContentType``.
    public func supersedeValue(
        url: HTTPURL,
        headers: [HeaderField],
        body: [UInt8]?,
        filter: QueryParameterFilter = .default
    ) -> String? {
        let value: String?
        switch self.supersedeKey {
        case nil:
            return nil
        case .capture(let group):
            guard case .regex(_, let expression) = self.pattern,
                let captures = expression.captures(in: CacheKey(url: url, filter: filter).rawValue), captures.indices.contains(group)
            else { return nil }
            value = captures[group]
        case .jsonField(let path):
            guard self.supersedeAnyContentType || JSONMediaType.names(headers.first(name: "content-type")) else { return nil }
            value = body.flatMap { try? JSONParser.parse($0) }?.value(atPath: path)?.scalarText
        case .header(let name):
            value = headers.first(name: name)?.trimmingWhitespace()
        }
        guard let value, !value.isEmpty else { return nil }
        return (self.group ?? url.origin) + "\u{0}" + value
    }

    /// The key a queued write is kept under for the supersede rule: its ``supersedeValue(url:headers:body:filter:)``,
    /// then NUL and its owner's digest (``AnswerOwner``), so that a write replaces only pending
    /// writes of the same owner: on a shared box, one pupil's save never replaces another's.
    /// Every client on Larder's own machine is its one user, so there any write with the same
    /// value replaces the older, as before. Nil when there is no value.
    public func storedSupersedeKey(
        url: HTTPURL,
        headers: [HeaderField],
        body: [UInt8]?,
        owner: AnswerOwner,
        filter: QueryParameterFilter = .default
    ) -> String? {
        self.supersedeValue(url: url, headers: headers, body: body, filter: filter).map { $0 + "\u{0}" + owner.digest }
    }
}

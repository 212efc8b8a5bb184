import LarderHTTP

extension CacheRoute {
    /// The settings a `routes` entry may have.
    static let configKeys = [
        "match", "regex", "strategy", "networkTimeoutSeconds", "maxAgeSeconds", "offline", "offlineMatch", "cacheMethods", "bodyKey",
    ]
    /// The methods `cacheMethods` may name: GET only matters for GraphQL `?query=` forms.
    static let cacheableMethods = ["POST", "QUERY", "GET"]
    /// The longest `networkTimeoutSeconds` accepted: a day.
    static let maximumNetworkTimeoutSeconds = 86_400.0
    /// The longest `maxAgeSeconds` accepted: 2^31 - 1 (about 68 years).
    static let maximumMaxAgeSeconds: Int64 = 2_147_483_647

    /// Reads the `routes` entry at `path`: exactly one of `match` and `regex`, and at least one of
    /// `strategy`, `offline`, `offlineMatch`, `cacheMethods` and `bodyKey`; optionally
    /// `networkTimeoutSeconds` and `maxAgeSeconds`.
    init(configValue value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) {
        let members = try reader.members(
            of: value,
            at: path,
            expected: "a route object",
            known: Self.configKeys,
            noun: "a route setting"
        )
        let pattern = try Self.pattern(members, of: value, at: path, reader: reader)

        let strategies = CachingStrategy.allCases.map(\.rawValue).joined(separator: ", ")
        guard ["strategy", "offline", "offlineMatch", "cacheMethods", "bodyKey"].contains(where: { members[$0] != nil }) else {
            throw reader.error(
                "needs a strategy (one of \(strategies)), or an offline, offlineMatch, cacheMethods or bodyKey setting", at: path,
                line: value.line)
        }
        let strategy = try Self.choice(CachingStrategy.self, members["strategy"], at: path.appending(member: "strategy"), reader: reader)
        let offline = try Self.choice(OfflineRule.self, members["offline"], at: path.appending(member: "offline"), reader: reader)
        let offlineMatch = try Self.choice(
            OfflineMatch.self, members["offlineMatch"], at: path.appending(member: "offlineMatch"), reader: reader)

        let bodyKey = try Self.choice(BodyKey.self, members["bodyKey"], at: path.appending(member: "bodyKey"), reader: reader)
        let cacheMethods = try Self.cacheMethods(members["cacheMethods"], bodyKey: bodyKey, at: path, reader: reader)
        if let bodyKey, bodyKey != .graphql, cacheMethods.isEmpty, let member = members["bodyKey"] {
            // Only graphql keys anything alone (GET ?query= forms); say so rather than do nothing.
            throw reader.error(
                "bodyKey \(bodyKey.rawValue.debugDescription) needs cacheMethods (e.g. [\"POST\"]); only \"graphql\" works alone",
                at: path.appending(member: "bodyKey"), line: member.value.line)
        }

        var networkTimeout: Duration?
        if let member = members["networkTimeoutSeconds"] {
            guard case .number(let number) = member.value.kind, number.value > 0,
                number.value <= Self.maximumNetworkTimeoutSeconds
            else {
                throw reader.mismatch(
                    member.value,
                    at: path.appending(member: "networkTimeoutSeconds"),
                    expected: "a positive number of seconds (at most \(Int(Self.maximumNetworkTimeoutSeconds)))"
                )
            }
            networkTimeout = .seconds(number.value)
        }

        var maxAge: Duration?
        if let member = members["maxAgeSeconds"] {
            guard case .number(let number) = member.value.kind, let seconds = number.integerValue, seconds > 0,
                seconds <= Self.maximumMaxAgeSeconds
            else {
                throw reader.mismatch(
                    member.value,
                    at: path.appending(member: "maxAgeSeconds"),
                    expected: "a positive whole number of seconds (at most \(Self.maximumMaxAgeSeconds))"
                )
            }
            maxAge = .seconds(seconds)
        }

        self.init(
            pattern: pattern,
            strategy: strategy,
            networkTimeout: networkTimeout,
            maxAge: maxAge,
            offline: offline ?? .relaxed,
            offlineMatch: offlineMatch ?? .ignoreCacheBusters,
            cacheMethods: cacheMethods,
            bodyKey: bodyKey
        )
    }

    /// The route's `cacheMethods`: a non-empty array of `POST`, `QUERY` and `GET` (the last only
    /// with `bodyKey` `graphql`, since only GraphQL GET forms are keyed); empty when absent.
    private static func cacheMethods(
        _ member: JSONMember?,
        bodyKey: BodyKey?,
        at path: ConfigKeyPath,
        reader: ConfigReader
    ) throws(ConfigFileError) -> Set<String> {
        guard let member else { return [] }
        let path = path.appending(member: "cacheMethods")
        let allowed = Self.cacheableMethods.map(\.debugDescription).joined(separator: ", ")
        let elements = try reader.elements(of: member.value, at: path, expected: "an array of methods (\(allowed))")
        guard !elements.isEmpty else {
            throw reader.mismatch(member.value, at: path, expected: "a non-empty array of methods (\(allowed))")
        }
        var methods: Set<String> = []
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index: index)
            let method = try reader.string(element, at: elementPath, expected: "one of \(allowed)")
            guard Self.cacheableMethods.contains(method) else {
                throw reader.mismatch(element, at: elementPath, expected: "one of \(allowed)")
            }
            if method == "GET", bodyKey != .graphql {
                throw reader.error(
                    "\"GET\" is keyed only as a GraphQL ?query= form and needs bodyKey \"graphql\"", at: elementPath, line: element.line)
            }
            methods.insert(method)
        }
        return methods
    }

    /// The named case of `Choice` a setting gives, nil when the setting is absent.
    private static func choice<Choice: RawRepresentable & CaseIterable>(
        _ type: Choice.Type,
        _ member: JSONMember?,
        at path: ConfigKeyPath,
        reader: ConfigReader
    ) throws(ConfigFileError) -> Choice? where Choice.RawValue == String {
        guard let member else { return nil }
        let expected = "one of " + Choice.allCases.map(\.rawValue).joined(separator: ", ")
        let name = try reader.string(member.value, at: path, expected: expected)
        guard let choice = Choice(rawValue: name) else {
            throw reader.mismatch(member.value, at: path, expected: expected)
        }
        return choice
    }

    /// The route's `match` glob or compiled `regex`, whichever of the two it has.
    static func pattern(
        _ members: [String: JSONMember],
        of value: JSONValue,
        at path: ConfigKeyPath,
        reader: ConfigReader
    ) throws(ConfigFileError) -> Pattern {
        switch (members["match"], members["regex"]) {
        case (let match?, nil):
            let glob = try reader.nonEmptyString(
                match.value,
                at: path.appending(member: "match"),
                expected: "a URL glob"
            )
            return .glob(ExcludeGlob(glob))
        case (nil, let regex?):
            let regexPath = path.appending(member: "regex")
            let source = try reader.nonEmptyString(regex.value, at: regexPath, expected: "a regular expression")
            do {
                return .regex(source: source, expression: try RouteRegex(source))
            } catch {
                throw reader.error(
                    "\(source.debugDescription) is not a valid regular expression: \(error)",
                    at: regexPath,
                    line: regex.value.line
                )
            }
        case (let match?, let regex?):
            throw reader.error(
                "has both match and regex; give exactly one",
                at: path,
                line: max(match.line, regex.line)
            )
        case (nil, nil):
            throw reader.error(
                "needs match (a URL glob) or regex (a regular expression)",
                at: path,
                line: value.line
            )
        }
    }
}

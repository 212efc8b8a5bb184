/// A GraphQL request read for its cache key, from a POST body or a GET `?query=` form: the
/// canonical form is the request object with the query document normalised
/// (``GraphQLDocument/normalized(_:)``), `variables`, `operationName` and `extensions` that are
/// null or absent (and `variables` that are `{}`) left out, and other members kept, as
/// ``CanonicalJSON`` writes it. Mutations and subscriptions are not read: they are writes.
struct GraphQLRequest {
    /// The names of the GET form's parameters (the rest of the URL stays in its key).
    static let parameterNames: Set<String> = ["query", "operationName", "variables", "extensions"]

    /// The canonical request object.
    let canonical: JSONValue
    /// Whether it carries its document (`query`), not only a persisted query's hash.
    let hasDocument: Bool

    /// The bytes the digest is taken of.
    var canonicalBytes: [UInt8] {
        CanonicalJSON.bytes(of: self.canonical)
    }

    /// A POST body: a JSON object with a string `query` (or, for a persisted query, `extensions`
    /// without one), an optional string `operationName` and optional object `variables`.
    init?(body: JSONValue) {
        guard case .object(let members) = body.kind else { return nil }
        var fields: [String: JSONValue] = [:]
        for member in members {
            fields[member.name] = member.value
        }
        self.init(fields: fields)
    }

    /// A GET form: the URL's `query`, `operationName`, `variables` and `extensions` parameters
    /// (percent-decoded, `+` as a space, as forms encode it; empty ones ignored but `query`);
    /// `variables` and `extensions` are JSON.
    init?(queryOf url: HTTPURL) {
        var fields: [String: JSONValue] = [:]
        for parameter in (url.query ?? "").utf8.split(separator: UInt8(ascii: "&")) {
            let name = Self.formDecoded(parameter.prefix { $0 != UInt8(ascii: "=") })
            guard Self.parameterNames.contains(name) else { continue }
            let value = Self.formDecoded(parameter.drop { $0 != UInt8(ascii: "=") }.dropFirst())
            // `variables=` and the like, as some clients send them, say nothing.
            guard !value.isEmpty || name == "query" else { continue }
            switch name {
            case "query", "operationName":
                fields[name] = JSONValue(.string(value), line: 1)
            default:
                guard let parsed = try? JSONParser.parse(Array(value.utf8)) else { return nil }
                fields[name] = parsed
            }
        }
        self.init(fields: fields)
    }

    private init?(fields: [String: JSONValue]) {
        var fields = fields
        for name in ["operationName", "variables", "extensions"] {
            if case .null? = fields[name]?.kind { fields[name] = nil }
        }
        if case .object(let members)? = fields["variables"]?.kind, members.isEmpty {
            fields["variables"] = nil
        }
        var operationName: String?
        switch fields["operationName"]?.kind {
        case nil: break
        case .string(let name)?: operationName = name
        default: return nil
        }
        for name in ["variables", "extensions"] {
            guard let value = fields[name] else { continue }
            guard case .object = value.kind else { return nil }
        }
        switch fields["query"]?.kind {
        case .string(let query)?:
            let document = GraphQLDocument(query)
            guard document.isRead(operationName: operationName) else { return nil }
            fields["query"] = JSONValue(.string(document.normalized), line: 1)
        case nil:
            // A persisted query names its document by hash in `extensions`.
            guard fields["extensions"] != nil else { return nil }
        default:
            return nil
        }
        self.hasDocument = fields["query"] != nil
        let members = fields.map { JSONMember(name: $0.key, line: 1, value: $0.value) }
        self.canonical = JSONValue(.object(members), line: 1)
    }

    private static func formDecoded(_ bytes: Substring.UTF8View.SubSequence) -> String {
        PercentEncoding.decoded(bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 })
    }
}

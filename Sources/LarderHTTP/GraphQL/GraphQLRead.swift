/// What a request is as GraphQL, for answering GraphQL queries when the origin cannot with no
/// config (docs/SERVING.md, "Requests with bodies"). The document is parsed
/// (``GraphQLDocument``), never guessed from names: only a `query` operation is side-effect free
/// by the GraphQL spec; `operationName` selects among several.
public enum GraphQLRead: Sendable, Equatable {
    /// A GraphQL request whose selected operation is a `query`, with its `graphql` body-key digest
    /// (``BodyKey/digest(of:)``).
    case query(digest: String)
    /// A GraphQL request whose selected operation is a `mutation` or `subscription` (a write,
    /// never answered from the store).
    case write(operation: String)
    /// A JSON object with a `query` member whose operation cannot be told: `query` is not a
    /// string, no single operation is selected (several without `operationName`, or none it
    /// names), or `operationName`, `variables` or `extensions` are not of their types.
    case unreadable
    /// A body that is not JSON.
    case invalidJSON
    /// Not a GraphQL request with a document: not an object, or no `query` (a persisted query
    /// names its document by hash only, so its operation cannot be told).
    case notGraphQL

    /// Reads a POST body.
    public init(body: [UInt8]) {
        guard let value = try? JSONParser.parse(body) else {
            self = .invalidJSON
            return
        }
        guard case .object(let members) = value.kind, let query = members.first(where: { $0.name == "query" })?.value else {
            self = .notGraphQL
            return
        }
        guard case .string(let text) = query.kind else {
            self = .unreadable
            return
        }
        var operationName: String?
        switch members.first(where: { $0.name == "operationName" })?.value.kind {
        case nil, .null?: break
        case .string(let name)?: operationName = name
        default:
            self = .unreadable
            return
        }
        let operations = GraphQLDocument(text).operations
        let selected = operationName.map { name in operations.filter { $0.name == name } } ?? operations
        guard selected.count == 1 else {
            self = .unreadable
            return
        }
        guard selected[0].type == "query" else {
            self = .write(operation: selected[0].type)
            return
        }
        guard let request = GraphQLRequest(body: value) else {
            self = .unreadable
            return
        }
        self = .query(digest: BodyKey.sha256(request.canonicalBytes))
    }

    /// Reads a GET form (`?query=…`); only a `query` document there is a read, anything else is
    /// ``notGraphQL`` (a GET is answered by its URL as any other).
    public init(queryOf url: HTTPURL) {
        guard let request = GraphQLRequest(queryOf: url), request.hasDocument else {
            self = .notGraphQL
            return
        }
        self = .query(digest: BodyKey.sha256(request.canonicalBytes))
    }

    /// The `Cache-Status` detail of such a request forwarded without being keyed, saying why it
    /// is never answered from the store: `graphql-mutation`, `graphql-subscription`,
    /// `graphql-unreadable`, `invalid-json`; nil for a query or a body that is not GraphQL.
    public var notKeyedDetail: String? {
        switch self {
        case .query, .notGraphQL: nil
        case .write(let operation): "graphql-\(operation)"
        case .unreadable: "graphql-unreadable"
        case .invalidJSON: "invalid-json"
        }
    }
}

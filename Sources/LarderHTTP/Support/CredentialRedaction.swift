/// Which header fields and query parameters carry credentials, and how they are written where a
/// user may share the text (`larder queue export`; docs/SERVING.md, "What is private and where it
/// is kept"). Names are compared ignoring case, with `_` read as `-` in header names.
///
/// - A header is a credential when its name is `Authorization`, `Proxy-Authorization`, `Cookie`,
///   `Cookie2` or `Set-Cookie`, or contains `token`, `secret`, `password`, `passwd`, `api-key`,
///   `apikey`, `access-key`, `session`, `auth`, `csrf`, `xsrf` or `signature`.
/// - A query parameter is a credential when its name (percent-decoded) is one of
///   ``credentialQueryNames``, or contains `token`, `secret`, `password`, `passwd`, `signature`,
///   `credential`, `apikey`, `api_key`, `access_key` or `session`.
///
/// A credential's value is replaced by ``placeholder``; its name stays, so the reader sees what
/// was there.
public enum CredentialRedaction {
    /// What a credential's value is replaced by.
    public static let placeholder = "[redacted]"

    /// Header names that are credentials exactly.
    static let credentialHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "cookie2", "set-cookie"]
    /// Parts of header names that make a credential.
    static let credentialHeaderParts = [
        "token", "secret", "password", "passwd", "api-key", "apikey", "access-key", "session", "auth", "csrf", "xsrf", "signature",
    ]
    /// Query parameter names that are credentials exactly (`key`, `sig` or `code` within a longer
    /// name is not: `monkey`, `design`, `zipcode`).
    public static let credentialQueryNames: Set<String> = [
        "access_token", "token", "id_token", "refresh_token", "api_key", "apikey", "key", "secret", "password", "passwd", "pwd",
        "sig", "signature", "auth", "session", "sessionid", "code", "client_secret",
    ]
    /// Parts of query parameter names that make a credential.
    static let credentialQueryParts = [
        "token", "secret", "password", "passwd", "signature", "credential", "apikey", "api_key", "access_key", "session",
    ]

    /// Whether a header named `name` carries a credential.
    public static func isCredentialHeader(_ name: String) -> Bool {
        let lower = name.lowercased().replacingOccurrences(of: "_", with: "-")
        return Self.credentialHeaderNames.contains(lower) || Self.credentialHeaderParts.contains { lower.contains($0) }
    }

    /// Whether a query parameter named `name` (as it appears in the URL, percent-encoded or not)
    /// carries a credential.
    public static func isCredentialQueryParameter(_ name: some StringProtocol) -> Bool {
        let lower = PercentEncoding.decoded(Array(name.utf8)).lowercased()
        return Self.credentialQueryNames.contains(lower) || Self.credentialQueryParts.contains { lower.contains($0) }
    }

    /// `headers` with the value of every credential replaced by ``placeholder``.
    public static func redacting(_ headers: [HeaderField]) -> [HeaderField] {
        headers.map { Self.isCredentialHeader($0.name) ? HeaderField(name: $0.name, value: Self.placeholder) : $0 }
    }

    /// `headers` without their credentials.
    public static func removingCredentials(from headers: [HeaderField]) -> [HeaderField] {
        headers.filter { !Self.isCredentialHeader($0.name) }
    }

    /// `url` with the value of every credential query parameter replaced by ``placeholder``; the
    /// rest of the text (other parameters, their order, the fragment) is kept as it is.
    public static func redactingQuery(of url: String) -> String {
        guard let questionMark = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[questionMark...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: questionMark)..<fragmentStart]
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "="), Self.isCredentialQueryParameter(parameter[..<equals]) else {
                return String(parameter)
            }
            return String(parameter[...equals]) + Self.placeholder
        }
        return String(url[...questionMark]) + parameters.joined(separator: "&") + String(url[fragmentStart...])
    }
}

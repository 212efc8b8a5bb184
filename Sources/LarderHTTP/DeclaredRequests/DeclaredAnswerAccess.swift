/// Who a declared request's answer may be given to, and with which CORS grant (docs/SERVING.md,
/// "Declared answers are the user's").
///
/// An answer Larder fetched with credentials it added itself (an `Authorization`, `Cookie` or
/// `Proxy-Authorization` header, or any header whose value names an `{{env:…}}` variable) is
/// the user's: it answers a request that carries the same values, or a request from a page
/// origin the config lists for it (`pageOrigins`) made on Larder's own machine, never any other.
/// The stored CORS fields are not given as they are to such a request: a stored `*` would let
/// any page read the user's data.
public enum DeclaredAnswerAccess: Sendable, Hashable {
    /// The declared request adds no credentials: its answer is anyone's, its headers as stored.
    case open
    /// The request carries the credentials the declared request adds; `origin` is its page's
    /// origin, when it names one.
    case sameCredentials(origin: String?)
    /// The request comes from a page origin the config lists for the declared request.
    case listedPageOrigin(String)

    /// The header names whose values are credentials of their own, whatever their values.
    static let credentialNames: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// How `declared`'s answer may answer `request` from `client`, nil when it may not.
    /// - Parameter resolvedHeaders: the declared request's headers as it is sent now.
    public static func decide(
        declared: DeclaredRequest, resolvedHeaders: [HeaderField], request: some HeaderFields, client: AnswerOwner.Client
    ) -> DeclaredAnswerAccess? {
        let credentials = declared.headers.filter { header in
            Self.credentialNames.contains(header.name.lowercased()) || !header.value.environmentNames.isEmpty
        }
        guard !credentials.isEmpty else { return .open }
        let origin = Self.pageOrigin(of: request)
        let carriesThem = credentials.allSatisfy { header in
            let sent = resolvedHeaders[header.name].joined(separator: ",")
            return !sent.isEmpty && request[header.name].joined(separator: ",") == sent
        }
        if carriesThem {
            return .sameCredentials(origin: origin)
        }
        if client == .local, let origin, declared.pageOrigins.contains(origin) {
            return .listedPageOrigin(origin)
        }
        return nil
    }

    /// The origin of the page that made `request`: its `Origin`, else its `Referer`'s origin.
    public static func pageOrigin(of request: some HeaderFields) -> String? {
        if request.contains(name: "origin") {
            return CORSGrant.pageOrigin(of: request)
        }
        return request.first(name: "referer").flatMap { try? HTTPURL(parsing: $0.trimmingWhitespace()) }?.origin
    }

    /// The stored headers as this access answers with them. A listed page origin is granted as
    /// the user granted it, credentials included. A request with the same credentials gets no
    /// more than the origin granted: its own origin for a stored `*` or for a grant naming it,
    /// nothing for a grant naming another. `Vary: Origin` either way, as the grant depends on it.
    public func headers(_ stored: [HeaderField]) -> [HeaderField] {
        guard self != .open else { return stored }
        let grant = stored.first(name: "access-control-allow-origin")?.trimmingWhitespace()
        let allowsCredentials = stored.first(name: "access-control-allow-credentials")?.trimmingWhitespace() == "true"
        var headers = stored
        headers.remove(name: "access-control-allow-origin")
        headers.remove(name: "access-control-allow-credentials")
        let granted: String?
        var withCredentials = false
        switch self {
        case .open:
            return stored
        case .listedPageOrigin(let origin):
            granted = origin
            withCredentials = true
        case .sameCredentials(let origin?):
            if grant == "*" {
                granted = origin
            } else if let grant, HTTPURL.canonicalOrigin(grant) == origin {
                granted = origin
                withCredentials = allowsCredentials
            } else {
                granted = nil
            }
        case .sameCredentials(nil):
            granted = nil
        }
        if let granted {
            headers.add(name: "Access-Control-Allow-Origin", value: granted)
            if withCredentials { headers.add(name: "Access-Control-Allow-Credentials", value: "true") }
        }
        let varied = headers["vary"].flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace().lowercased() }
        if !varied.contains("origin"), !varied.contains("*") {
            headers.add(name: "Vary", value: "Origin")
        }
        return headers
    }
}

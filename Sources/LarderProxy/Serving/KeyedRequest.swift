import Foundation
import LarderDeclaredRequests
import LarderHTTP
import NIOCore

/// A request keyed by its body (or its GraphQL GET form) as well as its URL, and why
/// (docs/SERVING.md, "Requests with bodies").
struct KeyedRequest: Sendable {
    /// The URL's key; for a GraphQL GET form, of the URL without its GraphQL parameters.
    var urlKey: CacheKey
    /// How the body becomes part of the key.
    var bodyKey: BodyKey
    /// A declared request, or a route's opt-in.
    var reason: CacheTransaction.Keyed
}

extension ProxyConfiguration {
    /// Whether a request may be keyed, so its body is read whole first: a declared request has
    /// its method and URL key now, or the first route covering the URL key opts the method in, or
    /// it is a POST that may be a GraphQL query keyed on defaults
    /// (``keysGraphQLQueries(method:urlKey:contentType:)``; a `contentType` of nil, unknown, is
    /// not JSON). A GET is keyed only as a GraphQL form. Asked for requests with a body.
    func mayKey(method: String, url: HTTPURL, contentType: String?) -> Bool {
        let isGet = method == "GET"
        let urlKey = CacheKey(url: isGet ? url.withoutGraphQLParameters : url, filter: self.queryFilter)
        let now = self.now()
        for declared in self.declaredRequests where declared.method == method && (!isGet || declared.bodyKey == .graphql) {
            if let declaredURL = try? declared.resolvedURL(TextTemplate.Context(now: now, timeZone: declared.timeZone)),
                CacheKey(url: isGet ? declaredURL.withoutGraphQLParameters : declaredURL, filter: self.queryFilter) == urlKey
            {
                return true
            }
        }
        return self.route(for: urlKey)?.bodyKey(forMethod: method, hasGraphQLQuery: isGet) != nil
            || (!isGet && self.keysGraphQLQueries(method: method, urlKey: urlKey, contentType: contentType))
    }

    /// Whether a request no declared request or route keys may be a GraphQL query kept on
    /// defaults (docs/SERVING.md, "Requests with bodies"): a POST sent as JSON, or a GET form,
    /// unless the route covering the URL is `network-only` or strict offline (a keyed answer is
    /// served whatever its `Cache-Control`, which such a route refuses).
    func keysGraphQLQueries(method: String, urlKey: CacheKey, contentType: String?) -> Bool {
        guard method == "GET" || (method == "POST" && JSONMediaType.names(contentType)) else { return false }
        guard let route = self.route(for: urlKey) else { return true }
        return route.strategy != .networkOnly && route.offline != .strict
    }

    /// The declared GET without a body key that asks for `key` now: its answer, stored pinned, is
    /// served network-first, as the declared request's app expects today's answer online.
    func declaredGet(_ key: CacheKey, now: Date) -> DeclaredRequest? {
        self.declaredRequests.first { declared in
            declared.method == "GET" && declared.bodyKey != .graphql
                && (try? declared.resolvedURL(TextTemplate.Context(now: now, timeZone: declared.timeZone))).map {
                    CacheKey(url: $0, filter: self.queryFilter) == key
                } == true
        }
    }

    /// How `declared`'s answer may answer a request from `client` with `headers`
    /// (``DeclaredAnswerAccess``), nil when it may not (or the request cannot be made now).
    func access(
        to declared: DeclaredRequest, headers: some HeaderFields, client: AnswerOwner.Client, now: Date
    ) -> DeclaredAnswerAccess? {
        let context = TextTemplate.Context(now: now, timeZone: declared.timeZone)
        guard let resolved = try? declared.resolve(context, queryFilter: self.queryFilter, readFile: DeclaredRequestRunner.readBodyFile)
        else { return nil }
        return DeclaredAnswerAccess.decide(declared: declared, resolvedHeaders: resolved.headers, request: headers, client: client)
    }

    /// How a request with `body` (nil: a GraphQL GET form) is keyed, nil when it is not. As a
    /// declared request only when it asks exactly what that request asks now: the same method,
    /// URL key and body digest (the app's other requests to that URL, its writes and other
    /// queries, are its own, and are neither stored nor answered as the declared one's), and
    /// when `headers` from `client` may have its answer (``DeclaredAnswerAccess``; a request
    /// that may not is not keyed at all, so no route stores or answers it under that key);
    /// else by the first route covering the URL key when it opts the method in; else, when the
    /// route does not key the method, as a GraphQL query on defaults (``GraphQLRead``).
    func keyedServing(
        method: String, url: HTTPURL, body: ByteBuffer?, headers: some HeaderFields, client: AnswerOwner.Client,
        learned: [String: JSONValue] = [:]
    ) -> KeyedServing? {
        guard
            case .keyed(let serving) = self.keyedLookup(
                method: method, url: url, body: body, headers: headers, client: client, learned: learned)
        else { return nil }
        return serving
    }

    /// What ``keyedServing(method:url:body:headers:client:learned:)`` finds, and when it finds no
    /// keying because a declared request's answer may not answer this request, which one: its
    /// error answer says so (docs/SERVING.md, "Declared answers are the user's").
    func keyedLookup(
        method: String, url: HTTPURL, body: ByteBuffer?, headers: some HeaderFields, client: AnswerOwner.Client,
        learned: [String: JSONValue] = [:]
    ) -> KeyedLookup {
        let isGet = method == "GET"
        let urlKey = CacheKey(url: isGet ? url.withoutGraphQLParameters : url, filter: self.queryFilter)
        func digest(_ bodyKey: BodyKey) -> String? {
            if isGet { return bodyKey == .graphql ? BodyKey.graphQLDigest(queryOf: url) : nil }
            return body.flatMap { bodyKey.digest(of: Array($0.readableBytesView)) }
        }
        let now = self.now()
        for declared in self.declaredRequests where declared.method == method {
            let learnedBody = declared.operationName != nil ? learned[declared.name] : nil
            guard let digest = digest(declared.bodyKey),
                let resolved = try? declared.resolve(
                    TextTemplate.Context(now: now, timeZone: declared.timeZone), queryFilter: self.queryFilter,
                    learnedBody: learnedBody, readFile: DeclaredRequestRunner.readBodyFile)
            else { continue }
            var learning: LearnedQueryCandidate?
            if resolved.key != urlKey.keyed(method: method, bodyKey: declared.bodyKey, digest: digest) {
                // The app's own version of it (another query text, the same operation and URL)
                // is kept as the declared one's, and followed from now on.
                guard !isGet, let body, CacheKey(url: resolved.url, filter: self.queryFilter) == urlKey,
                    let template = LearnedQuery.template(of: Array(body.readableBytesView), for: declared, now: now)
                else { continue }
                learning = LearnedQueryCandidate(name: declared.name, template: template)
            }
            guard
                let access = DeclaredAnswerAccess.decide(
                    declared: declared, resolvedHeaders: resolved.headers, request: headers, client: client)
            else { return .withheld(declared: declared.name) }
            var serving = KeyedServing(
                KeyedRequest(urlKey: urlKey, bodyKey: declared.bodyKey, reason: .declared), method: method, digest: digest, body: body)
            serving.access = access
            serving.learning = learning
            return .keyed(serving)
        }
        if let bodyKey = self.route(for: urlKey)?.bodyKey(forMethod: method, hasGraphQLQuery: isGet) {
            guard let digest = digest(bodyKey) else { return .notKeyed }
            return .keyed(
                KeyedServing(KeyedRequest(urlKey: urlKey, bodyKey: bodyKey, reason: .route), method: method, digest: digest, body: body))
        }
        guard self.keysGraphQLQueries(method: method, urlKey: urlKey, contentType: headers["content-type"].first) else { return .notKeyed }
        let read = isGet ? GraphQLRead(queryOf: url) : body.map { GraphQLRead(body: Array($0.readableBytesView)) }
        guard case .query(let digest)? = read else { return .notKeyed }
        return .keyed(
            KeyedServing(
                KeyedRequest(urlKey: urlKey, bodyKey: .graphql, reason: .graphQLQuery), method: method, digest: digest, body: body))
    }
}

extension ProxyConfiguration {
    /// How a CORS preflight for `url` is keyed: by its page origin, method and fields beside the
    /// URL's key, so the origin's answer to one page origin never answers another's.
    func preflightServing(_ preflight: CORSPreflight, url: HTTPURL) -> KeyedServing {
        var serving = KeyedServing(
            KeyedRequest(urlKey: CacheKey(url: url, filter: self.queryFilter), bodyKey: .exact, reason: .preflight), method: "OPTIONS",
            digest: preflight.digest, body: nil)
        serving.preflight = preflight
        return serving
    }

    /// Whether the user listed `page` (a canonical origin) in the `pageOrigins` of a queue route
    /// that may queue a request with `method` to `url`, or of a declared request with that method
    /// and URL: the page is the user's own app, so Larder grants it in the origin's place
    /// (``CORSInOriginsPlace``).
    func listsPageOrigin(_ page: String, method: String, url: HTTPURL) -> Bool {
        let key = CacheKey(url: url, filter: self.queryFilter)
        if self.writeQueue.rules.contains(where: {
            $0.pageOrigins.contains(page) && $0.methods.contains(method) && $0.pattern.matches(key)
        }) {
            return true
        }
        let now = self.now()
        return self.declaredRequests.contains { declared in
            guard declared.method == method, declared.pageOrigins.contains(page),
                let declaredURL = try? declared.resolvedURL(TextTemplate.Context(now: now, timeZone: declared.timeZone))
            else { return false }
            return CacheKey(url: declaredURL, filter: self.queryFilter) == key
        }
    }
}

/// Whether and how a request with a body is keyed (``ProxyConfiguration/keyedLookup(method:url:body:headers:client:learned:)``).
enum KeyedLookup: Sendable {
    /// Keyed so.
    case keyed(KeyedServing)
    /// Not keyed: it matches the declared request named `declared`, whose answer it may not have.
    case withheld(declared: String)
    /// Not keyed.
    case notKeyed
}

/// A keyed request with its body read: what ``ForwardProxy/serveCacheable(_:url:writer:keyed:)`` serves.
struct KeyedServing: Sendable {
    /// How and why it is keyed.
    var request: KeyedRequest
    /// The keyed key its answers are stored under.
    var key: CacheKey
    /// The body sent upstream (nil for a GraphQL GET form).
    var body: ByteBuffer?
    /// How a declared request's stored answer answers this request.
    var access: DeclaredAnswerAccess = .open
    /// The CORS preflight it is, for a request keyed as one.
    var preflight: CORSPreflight?
    /// The app's own version of a declared request, to be followed once the origin answers it 2xx.
    var learning: LearnedQueryCandidate?

    /// `request` for a body (or GraphQL GET form) with `digest`, sent with `method`.
    init(_ request: KeyedRequest, method: String, digest: String, body: ByteBuffer?) {
        self.request = request
        self.key = request.urlKey.keyed(method: method, bodyKey: request.bodyKey, digest: digest)
        self.body = body
    }
}

/// An app's request that may become a declared request's body (``LearnedQuery``).
struct LearnedQueryCandidate: Sendable {
    /// The declared request's name.
    var name: String
    /// The app's body as a template.
    var template: JSONValue
}

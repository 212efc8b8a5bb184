import LarderHTTP
import NIOCore

/// Which of ``ForwardProxy``'s serve methods a forwarded request goes to, decided as a value from
/// its head (``forHead(method:url:headers:hasBody:client:configuration:)``) and, for a body read
/// whole first, from that body (``forBody(_:method:url:headers:mayQueue:client:learned:configuration:)``);
/// ``ProxyConnection`` reads the body as it says and carries out the choice (docs/SERVING.md,
/// "Requests with bodies" and "Queued writes").
enum ServeDispatch: Sendable {
    /// Served so, with no body (or its body already read whole).
    case serve(Choice)
    /// Read the body whole first, up to ``BodyKey/maximumBodySize``, then ``forBody(_:method:url:headers:mayQueue:client:learned:configuration:)``
    /// (a larger one is streamed, unkeyed and unqueued): a request a queue rule may cover
    /// (`mayQueue`), or one that may be keyed by its body.
    case readBodyFirst(mayQueue: Bool)
    /// ``ForwardProxy/serveUncacheable(_:url:client:body:writer:detail:withheldDeclared:)`` with
    /// the body streamed upstream as it arrives.
    case streamBody

    /// A serve method, and what it is given.
    enum Choice: Sendable {
        /// ``ForwardProxy/serveCacheable(_:url:client:writer:keyed:)``, keyed so (nil: by its URL alone).
        case cacheable(keyed: KeyedServing?)
        /// ``ForwardProxy/serveQueueable(_:url:client:body:rule:writer:)``: a write the rule queues.
        case queueable(WriteQueueRule)
        /// ``ForwardProxy/serveUncacheable(_:url:client:body:writer:detail:withheldDeclared:)``;
        /// `withheldDeclared` names the declared request whose answer this request may not have,
        /// `detail` why a JSON body is never answered from the store.
        case uncacheable(withheldDeclared: String?, detail: String?)
    }

    /// The dispatch of a request from its head: `hasBody` when it declares a body (a length over
    /// zero, or `Transfer-Encoding`).
    static func forHead(
        method: String, url: HTTPURL, headers: some HeaderFields, hasBody: Bool, client: AnswerOwner.Client,
        configuration: ProxyConfiguration
    ) -> ServeDispatch {
        let isRead = method == "GET" || method == "HEAD"
        let key = CacheKey(url: url, filter: configuration.queryFilter)
        guard !hasBody else {
            let mayQueue = !isRead && configuration.writeQueue.mayQueue(method: method, key: key)
            if mayQueue || (!isRead && configuration.mayKey(method: method, url: url, contentType: headers["content-type"].first)) {
                return .readBodyFirst(mayQueue: mayQueue)
            }
            return .streamBody
        }
        if let preflight = CORSPreflight(method: method, request: headers) {
            return .serve(.cacheable(keyed: configuration.preflightServing(preflight, url: url)))
        }
        if method == "GET", url.hasGraphQLQuery,
            let keyed = configuration.keyedServing(method: method, url: url, body: nil, headers: headers, client: client)
        {
            return .serve(.cacheable(keyed: keyed))
        }
        if isRead {
            return .serve(.cacheable(keyed: nil))
        }
        if let rule = configuration.writeQueue.rule(method: method, key: key, body: []) {
            return .serve(.queueable(rule))
        }
        return .serve(.uncacheable(withheldDeclared: nil, detail: nil))
    }

    /// The choice for a request whose body was read whole (after ``readBodyFirst(mayQueue:)``):
    /// a write a rule queues is never answered from the store, whatever keys it; else keyed by
    /// its body when it is (`learned`: the app's own versions of declared queries), else not.
    static func forBody(
        _ body: ByteBuffer, method: String, url: HTTPURL, headers: some HeaderFields, mayQueue: Bool, client: AnswerOwner.Client,
        learned: [String: JSONValue], configuration: ProxyConfiguration
    ) -> Choice {
        let bytes = Array(body.readableBytesView)
        let key = CacheKey(url: url, filter: configuration.queryFilter)
        if mayQueue, let rule = configuration.writeQueue.rule(method: method, key: key, body: bytes) {
            return .queueable(rule)
        }
        switch configuration.keyedLookup(method: method, url: url, body: body, headers: headers, client: client, learned: learned) {
        case .keyed(let keyed):
            return .cacheable(keyed: keyed)
        case .withheld(let declared):
            // Its error answer says a declared answer exists and why it was withheld.
            return .uncacheable(withheldDeclared: declared, detail: nil)
        case .notKeyed:
            // A JSON body that is not a GraphQL query says why it is never answered from the store.
            let detail = JSONMediaType.names(headers["content-type"].first) ? GraphQLRead(body: bytes).notKeyedDetail : nil
            return .uncacheable(withheldDeclared: nil, detail: detail)
        }
    }
}

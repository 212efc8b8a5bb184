/// Which CORS grant an answer Larder gives in an origin's place carries for a page of another
/// origin (docs/SERVING.md, "CORS when the origin cannot answer"): never wider than the origin
/// gave that page for that resource.
///
/// Grants are per resource, a URL and a method. One learned on `/pub/feed.json` (which grants
/// `*`) never opens `/internal/payroll.json` (which grants nothing): each answer is judged by what
/// the origin said of it alone, so a page of another site reads offline only what it could read
/// online. A preflight is answered offline only by the origin's own stored answer to that URL,
/// page, method and fields, so one the origin refused stays refused.
public enum CORSInOriginsPlace {
    /// What is known of the origin's grants to one page origin for the resource being answered.
    public struct Evidence: Hashable, Sendable {
        /// The grant the origin last gave the page on this URL and method: learned from its answer
        /// to the page's request for it, or, for an answer Larder makes itself (a queued write's
        /// `202`, its error pages), from a preflight for it the origin allowed.
        public var learned: CORSGrant?
        /// What the stored copy being served grants the page in its own fields (nil when none, or
        /// when Larder answers with a page of its own).
        public var stored: CORSGrant?
        /// The answer is personal (``AnswerOwner``): fetched with credentials or marked `private`.
        public var personal: Bool
        /// The page origin is in the `pageOrigins` of the queue route or declared request that
        /// covers the request: the user said that page is theirs.
        public var listed: Bool

        /// Evidence as the caller gathered it.
        public init(learned: CORSGrant? = nil, stored: CORSGrant? = nil, personal: Bool = false, listed: Bool = false) {
            self.learned = learned
            self.stored = stored
            self.personal = personal
            self.listed = listed
        }
    }

    /// The grant an answer in the origin's place gives `page`, nil for none (the page cannot read
    /// it, as the origin's own rule would have it).
    ///
    /// - A listed page origin gets its own origin with credentials, as the user granted it.
    /// - Else the grant the origin gave this page for this resource, learned or in the stored
    ///   copy's own fields (the learned one first: the stored copy may come from Larder's own
    ///   request, or another page's).
    /// - A personal answer is given only by a grant that allowed credentials: `*`, or an exact
    ///   origin without credentials, lets a page read only what the origin gives without the
    ///   user's cookies, never the user's own copy.
    public static func grant(page: String, _ evidence: Evidence) -> CORSGrant? {
        if evidence.listed {
            let exposed = evidence.learned?.exposedHeaders ?? evidence.stored?.exposedHeaders ?? []
            return CORSGrant(allowOrigin: page, allowsCredentials: true, exposedHeaders: exposed)
        }
        let known = [evidence.learned, evidence.stored].compactMap { $0 }
        if evidence.personal {
            return known.first { $0.allowsCredentials && $0.allowOrigin == page }
        }
        return known.first { $0.allowOrigin == "*" || $0.allowOrigin == page }
    }

    /// How a preflight is answered when the origin cannot answer it and no stored answer of the
    /// origin's to the same URL, page, method and fields can: with an allowing `204` only for a
    /// listed page origin, else not at all (nil: Larder's error page, without CORS fields).
    public static func preflightAnswer(_ preflight: CORSPreflight, listed: Bool) -> [HeaderField]? {
        guard listed else { return nil }
        return preflight.answer(from: CORSGrant(allowOrigin: preflight.pageOrigin, allowsCredentials: true, exposedHeaders: []))
    }
}

extension CORSPreflight {
    /// Whether the origin's answer (`status`, `response`) allows what this preflight asks: a 2xx
    /// that grants the page origin, allows the method (one of the CORS-safelisted `GET`, `HEAD`,
    /// `POST`, or listed, or `*`) and every field asked (listed, or `*`). A preflight answered
    /// otherwise is refused: its stored answer and the grant learned from it are forgotten, so it
    /// stays refused offline.
    public func isAllowed(status: Int, response: some HeaderFields) -> Bool {
        guard (200..<300).contains(status), CORSGrant(response: response, pageOrigin: self.pageOrigin) != nil else { return false }
        let methods = CORSGrant.names(response["access-control-allow-methods"])
        let safelisted: Set<String> = ["GET", "HEAD", "POST"]
        guard safelisted.contains(self.method) || methods.contains("*") || methods.contains(self.method.lowercased()) else {
            return false
        }
        let allowedHeaders = Set(CORSGrant.names(response["access-control-allow-headers"]))
        return allowedHeaders.contains("*") || self.headers.allSatisfy { allowedHeaders.contains($0) }
    }

    /// The grant the origin's allowing answer gives the page for the method it asked about: its
    /// origin and credentials (a preflight exposes no fields).
    public func grant(from response: some HeaderFields) -> CORSGrant? {
        CORSGrant(response: response, pageOrigin: self.pageOrigin)
    }
}

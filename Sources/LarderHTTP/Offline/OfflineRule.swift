/// Which stored responses may answer when the origin cannot (a route's `offline` setting).
///
/// An offline proxy exists to answer when revalidation is impossible, so by default any stored
/// response for the request may answer then, `no-cache` and `must-revalidate` ones included
/// (docs/SERVING.md, "Offline fallback"). Online, RFC 9111 applies either way.
public enum OfflineRule: String, Sendable, Hashable, CaseIterable {
    /// Any stored response may answer when the origin cannot; the answer says what was relaxed.
    case relaxed
    /// RFC 9111 section 4.2.4 only: a stale `no-cache` or `must-revalidate` response is not served
    /// disconnected (504 instead), unless `stale-if-error` allows it.
    case strict
}

/// Whether a stored response may answer while the origin cannot.
public enum DisconnectedUse: Sendable, Hashable {
    /// It may, as RFC 9111 allows (fresh, plainly stale, `stale-if-error`, or precached).
    case allowed
    /// It may because the offline rule is relaxed; RFC 9111 forbids it for this directive
    /// (`no-cache` or `must-revalidate`), or would not have stored it (`status-302`:
    /// ``DisconnectedRedirect``).
    case relaxed(directive: String)
    /// It may because the user chose to keep its site's `no-store` pages (``KeptNoStore``).
    case kept
    /// It may not (a strict route): this directive forbids it.
    case forbidden(directive: String)

    /// Whether the response may answer.
    public var mayAnswer: Bool {
        if case .forbidden = self { false } else { true }
    }

    /// The `Cache-Status` detail for an answer given while the origin could not answer for `why`
    /// (e.g. `upstream-unreachable`): `why`, plus what was relaxed (`+relaxed-no-cache`) or that
    /// the copy was kept against its `no-store` (`+kept-no-store`).
    public func detail(_ why: String) -> String {
        switch self {
        case .relaxed(let directive): "\(why)+relaxed-\(directive)"
        case .kept: "\(why)+\(KeptNoStore.detail)"
        case .allowed, .forbidden: why
        }
    }
}

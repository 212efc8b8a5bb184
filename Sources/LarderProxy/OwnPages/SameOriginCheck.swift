import Foundation
import LarderHTTP
import LarderIntrospection

/// Decides whether a control POSTed to /dev/offline comes from Larder's own pages (cross-site
/// request forgery protection: a page on another site must not purge the cache or flip offline mode
/// through the user's browser).
///
/// A request is accepted when its `Origin` (or, without one, its `Referer`) is an `http` origin of
/// this proxy: `127.0.0.1`, `localhost`, `[::1]` or the listen address at the proxy's port, or the
/// authority the request itself was addressed to (which routing has already checked is this proxy,
/// e.g. a LAN address with `--allow`). For a client on another machine (LAN mode), `127.0.0.1`,
/// `localhost` and `[::1]` name that machine, not Larder: a page on its own localhost at Larder's
/// port must not press Larder's controls, so loopback spellings count only for clients on this
/// machine. `Origin: null` (sandboxed frames, `no-referrer` pages) is
/// refused. A `Sec-Fetch-Site` other than `same-origin` or `none` is refused as well.
///
/// A POST with neither `Origin` nor `Referer` is refused: every current browser sends `Origin` with a
/// form POST, so only a script or an old or tampered browser sends neither, and accepting those would
/// reopen the hole for the latter. Scripts use `larder purge` and `larder status`, or send
/// `Origin: http://127.0.0.1:PORT` themselves.
public struct SameOriginCheck: Sendable {
    /// A `(host, port)` pair that means this proxy; hosts lower-case, IPv6 without brackets.
    struct Authority: Hashable, Sendable {
        var host: String
        var port: Int

        /// Whether this authority of the proxy's names the proxy for a client on this machine
        /// (`forLoopbackClient`) or elsewhere, for which loopback spellings name its own machine.
        func namesThisProxy(forLoopbackClient: Bool) -> Bool {
            forLoopbackClient || !CIDR.isLoopback(host: self.host)
        }
    }

    /// The proxy's own `http` origins, e.g. `http://127.0.0.1:8080`.
    let ownAuthorities: Set<Authority>

    /// Builds the check from origins written like `http://127.0.0.1:8080` (others are ignored).
    public init(ownOrigins: Set<String>) {
        self.ownAuthorities = Set(ownOrigins.compactMap { Self.httpAuthority($0) })
    }

    /// Nil when `request` may run a control, else why not (for the 403 page).
    public func refusal(for request: OwnPageRequest) -> String? {
        var accepted = self.ownAuthorities
        if let addressed = Self.addressedAuthority(request) {
            accepted.insert(addressed)
        }
        accepted = accepted.filter { $0.namesThisProxy(forLoopbackClient: request.clientIsLoopback) }
        if let site = request.headers.first(name: "sec-fetch-site")?.lowercased(), site != "same-origin", site != "none" {
            return
                "The browser says this request comes from another site (Sec-Fetch-Site: \(site)). Use the buttons on Larder's own /dev/offline page."
        }
        if let origin = request.headers.first(name: "origin") {
            guard let authority = Self.httpAuthority(origin), accepted.contains(authority) else {
                return "A page on \(origin) may not change Larder's cache. Use the buttons on Larder's own /dev/offline page."
            }
            return nil
        }
        if let referer = request.headers.first(name: "referer") {
            guard let authority = Self.httpAuthority(referer), accepted.contains(authority) else {
                return "A page on \(referer) may not change Larder's cache. Use the buttons on Larder's own /dev/offline page."
            }
            return nil
        }
        return
            "The request has neither an Origin nor a Referer header, so Larder cannot tell that it comes from its own page. Browsers send Origin with every form; scripts should use `larder purge`, or send Origin: \(self.exampleOrigin)."
    }

    private var exampleOrigin: String {
        let preferred = self.ownAuthorities.first { $0.host == "127.0.0.1" } ?? self.ownAuthorities.first
        guard let preferred else { return "http://127.0.0.1:PORT" }
        return "http://\(HTTPURL.bracketed(host: preferred.host)):\(preferred.port)"
    }

    /// Whether `origin` is one of `ownOrigins` (spellings of this proxy's origin) for a client on
    /// this machine (`clientIsLoopback`) or elsewhere, for which loopback spellings name its own
    /// machine instead.
    static func isOwn(_ origin: String, in ownOrigins: Set<String>, clientIsLoopback: Bool) -> Bool {
        guard ownOrigins.contains(origin) else { return false }
        return Self.httpAuthority(origin)?.namesThisProxy(forLoopbackClient: clientIsLoopback) ?? clientIsLoopback
    }

    /// The `(host, port)` of an `http://` origin or URL; nil for any other scheme, `null` or garbage.
    static func httpAuthority(_ text: String) -> Authority? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("http://") else { return nil }
        let withPath = trimmed.dropFirst(7).contains("/") ? trimmed : trimmed + "/"
        guard let url = try? HTTPURL(parsing: withPath) else { return nil }
        return Authority(host: url.host, port: url.effectivePort)
    }

    /// The authority the request was addressed to: its absolute-form target's, else its `Host`.
    static func addressedAuthority(_ request: OwnPageRequest) -> Authority? {
        if request.target.lowercased().hasPrefix("http://") {
            return Self.httpAuthority(request.target)
        }
        return request.headers.first(name: "host").flatMap { Self.httpAuthority("http://\($0)") }
    }
}

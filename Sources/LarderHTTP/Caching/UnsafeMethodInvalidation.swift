/// What a successful unsafe request makes stale (RFC 9111 section 4.4): the stored responses for
/// its target URI and for the URIs its answer's `Location` and `Content-Location` name, when they
/// are of the same origin (a response cannot invalidate what another origin serves).
public enum UnsafeMethodInvalidation {
    /// Whether an answer with `status` invalidates: a non-error status (2xx or 3xx).
    public static func invalidates(status: Int) -> Bool {
        (200..<400).contains(status)
    }

    /// The URIs whose stored responses are invalid after a successful unsafe request to `url`
    /// answered with these `Location` and `Content-Location` values (resolved against `url`):
    /// `url` first, then each same-origin one, in order.
    public static func targets(of url: HTTPURL, location: [String], contentLocation: [String]) -> [HTTPURL] {
        var targets = [url]
        for value in location + contentLocation {
            guard let target = url.resolving(value), target.scheme == url.scheme, target.host == url.host,
                target.effectivePort == url.effectivePort
            else { continue }
            targets.append(target)
        }
        return targets
    }
}

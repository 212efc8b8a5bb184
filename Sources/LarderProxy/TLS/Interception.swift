/// HTTPS interception settings: the certificates to present, and the hosts left as plain
/// tunnels (`--tunnel GLOB`, for apps that pin certificates).
public struct Interception: Sendable {
    /// Issues and caches per-host certificates signed by Larder's CA.
    public let certificates: InterceptionCertificates
    /// Host globs tunnelled untouched (`*` matches within a label run, e.g. `*.apple.com`).
    public let tunnelHosts: [String]

    /// Creates interception settings.
    public init(certificates: InterceptionCertificates, tunnelHosts: [String] = []) {
        self.certificates = certificates
        self.tunnelHosts = tunnelHosts
    }

    /// Whether a CONNECT to `host` is intercepted (not on the tunnel list).
    public func intercepts(host: String) -> Bool {
        let host = host.lowercased()
        return !self.tunnelHosts.contains { Self.matches(pattern: $0.lowercased(), host: host) }
    }

    /// Glob match where `*` matches any run of characters (including dots).
    static func matches(pattern: String, host: String) -> Bool {
        let pattern = Array(pattern.utf8)
        let host = Array(host.utf8)
        var p = 0
        var h = 0
        var star = -1
        var resume = 0
        while h < host.count {
            if p < pattern.count && (pattern[p] == host[h]) {
                p += 1
                h += 1
            } else if p < pattern.count && pattern[p] == UInt8(ascii: "*") {
                star = p
                resume = h
                p += 1
            } else if star >= 0 {
                p = star + 1
                resume += 1
                h = resume
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}

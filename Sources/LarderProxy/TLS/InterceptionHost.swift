#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// A host Larder issues a leaf certificate for: a DNS name or an IP address literal, validated and normalised so
/// that spellings of one host (`Example.COM.`, `[::1]`, `0:0::1`) share one certificate.
struct InterceptionHost: Hashable, Sendable {
    /// What the host is, with the bytes a subject alternative name needs.
    enum Kind: Hashable, Sendable {
        /// A DNS name, lower-cased, without a trailing dot.
        case dnsName
        /// An IPv4 address: its 4 bytes.
        case ipv4([UInt8])
        /// An IPv6 address: its 16 bytes.
        case ipv6([UInt8])
    }

    /// The normalised name: lower-cased DNS name, dotted IPv4, or canonical IPv6 without brackets.
    let name: String
    /// Whether ``name`` is a DNS name or an IP address.
    let kind: Kind

    /// The longest DNS name accepted, in characters, without a trailing dot (RFC 1035).
    static let maximumDNSNameLength = 253
    /// The longest DNS label accepted, in characters (RFC 1035).
    static let maximumLabelLength = 63

    /// Validates and normalises `host` as it arrives in a CONNECT request or TLS server name indication.
    ///
    /// IP literals may be bracketed (`[::1]`). DNS names may contain only ASCII letters, digits, `.`, `-`, `_`
    /// and a leading `*` label; internationalised names must arrive in their `xn--` form.
    init(_ host: String) throws(CertificateAuthorityError) {
        var candidate = host
        if candidate.hasPrefix("["), candidate.hasSuffix("]"), candidate.count >= 2 {
            candidate = String(candidate.dropFirst().dropLast())
        }
        if let bytes = Self.addressBytes(candidate, family: AF_INET, count: 4) {
            self.name = Self.presentation(bytes, family: AF_INET) ?? candidate
            self.kind = .ipv4(bytes)
            return
        }
        if let bytes = Self.addressBytes(candidate, family: AF_INET6, count: 16) {
            self.name = Self.presentation(bytes, family: AF_INET6) ?? candidate.lowercased()
            self.kind = .ipv6(bytes)
            return
        }
        self.name = try Self.validatedDNSName(candidate, original: host)
        self.kind = .dnsName
    }

    /// The subject common name: the host, cut to the 64 characters X.520 allows.
    var commonName: String {
        String(self.name.prefix(64))
    }

    private static func validatedDNSName(
        _ candidate: String,
        original: String
    ) throws(CertificateAuthorityError) -> String {
        func invalid(_ problem: String) -> CertificateAuthorityError {
            CertificateAuthorityError(.invalidHost, subject: original, "Invalid host \"\(original)\": \(problem).")
        }
        var name = candidate.lowercased()
        if name.hasSuffix(".") {
            name.removeLast()
        }
        guard !name.isEmpty else {
            throw invalid("the host name is empty")
        }
        guard name.utf8.count <= Self.maximumDNSNameLength else {
            throw invalid(
                "a DNS name is at most \(Self.maximumDNSNameLength) characters, this one has \(name.utf8.count)"
            )
        }
        if let bad = name.unicodeScalars.first(where: { !Self.isAllowedInDNSName($0) }) {
            if !bad.isASCII {
                throw invalid(
                    "it contains the non-ASCII character \"\(bad)\"; use the xn-- (punycode) form of the name"
                )
            }
            throw invalid(
                "it contains \"\(bad.escaped(asASCII: true))\"; only letters, digits, '.', '-', '_' and '*' are allowed"
            )
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            guard !label.isEmpty else {
                throw invalid("it has an empty label (two dots in a row, or a leading dot)")
            }
            guard label.utf8.count <= Self.maximumLabelLength else {
                throw invalid("the label \"\(label)\" is longer than \(Self.maximumLabelLength) characters")
            }
            if label.contains("*"), index != 0 || label != "*" {
                throw invalid("'*' is only allowed as the whole first label, as in *.example.com")
            }
        }
        return name
    }

    private static func isAllowedInDNSName(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_", "*": true
        default: false
        }
    }

    private static func addressBytes(_ text: String, family: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let parsed = bytes.withUnsafeMutableBytes { buffer in
            inet_pton(family, text, buffer.baseAddress)
        }
        return parsed == 1 ? bytes : nil
    }

    private static func presentation(_ bytes: [UInt8], family: Int32) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted = bytes.withUnsafeBytes { buffer in
            inet_ntop(family, buffer.baseAddress, &text, socklen_t(text.count))
        }
        guard converted != nil else {
            return nil
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

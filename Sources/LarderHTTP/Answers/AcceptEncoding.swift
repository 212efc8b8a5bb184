/// The content codings a request's `Accept-Encoding` allows (RFC 9110 section 12.5.3).
///
/// Codings are case-insensitive, and `x-gzip` is `gzip` (section 8.4.1.3). A weight of 0 makes a
/// coding unacceptable; `*` stands for every coding not listed; `identity` (no coding) is
/// acceptable unless `identity;q=0`, or `*;q=0` without an `identity` entry, excludes it.
///
/// Deliberate deviation: a request **without** `Accept-Encoding` accepts only `identity`, as if the
/// field were empty. RFC 9110 lets a server send any coding then, but Larder asks upstream for gzip
/// itself and stores that, and the clients that send no `Accept-Encoding` (curl without
/// `--compressed`, simple HTTP libraries) mostly cannot decode gzip: they must get it decoded.
///
/// Parsing is lenient: empty list elements and elements without a coding name are skipped;
/// parameters other than `q` are ignored; any decimal weight counts by whether it is above 0, even
/// beyond the grammar's range and three decimals (`q=1.001` accepts, `q=0.000` refuses), while an
/// element whose weight is not a decimal number is skipped. When a coding is listed more than once,
/// the first entry wins.
public struct AcceptEncoding: Sendable, Hashable {
    /// Every `Content-Encoding` Larder can serve to a client that accepts only `identity`: the
    /// codings it decodes (``ContentCoding``), and `identity` itself.
    public static let decodableCodings: Set<String> = Set(ContentCoding.byName.keys).union(["identity"])

    /// Whether each listed coding (lower-cased, `x-gzip` as `gzip`) has a weight above 0.
    private var acceptable: [String: Bool] = [:]

    /// Parses the `Accept-Encoding` field lines of a request (none when it has no such field).
    public init<Values: Sequence>(_ fieldValues: Values) where Values.Element == String {
        for value in fieldValues {
            for element in CacheControlDirectives.splitList(value) {
                let parts = element.split(separator: ";", omittingEmptySubsequences: false)
                let coding = Self.canonical(parts[0])
                guard !coding.isEmpty, let weight = QualityValue.weight(parts.dropFirst()) else { continue }
                if self.acceptable[coding] == nil {
                    self.acceptable[coding] = weight > 0
                }
            }
        }
    }

    /// Whether a response in `coding` (a `Content-Encoding` name, `identity` for none) is acceptable.
    public func accepts(_ coding: String) -> Bool {
        let coding = Self.canonical(coding)
        if let listed = self.acceptable[coding] {
            return listed
        }
        // `*` covers identity too; without it only identity is acceptable unlisted.
        return self.acceptable["*"] ?? (coding == "identity")
    }

    /// Lower-cased and trimmed, with the `x-` aliases of section 8.4.1 under their names.
    private static func canonical(_ name: some StringProtocol) -> String {
        let name = name.trimmingWhitespace().lowercased()
        switch name {
        case "x-gzip":
            return "gzip"
        case "x-compress":
            return "compress"
        default:
            return name
        }
    }
}

/// A content coding Larder can undo (RFC 9110 section 8.4.1), named by a `Content-Encoding` value.
public enum ContentCoding: String, Sendable, Hashable, CaseIterable {
    /// `gzip` (and its alias `x-gzip`, section 8.4.1.3): one or more gzip members (RFC 1952).
    case gzip
    /// `deflate` (section 8.4.1.2): a zlib stream (RFC 1950); a raw deflate stream (RFC 1951), which
    /// some servers send instead, is decoded too, as browsers do.
    case deflate

    /// Every `Content-Encoding` name Larder decodes, lower-cased, with the coding it stands for.
    public static let byName: [String: ContentCoding] = ["gzip": .gzip, "x-gzip": .gzip, "deflate": .deflate]

    /// The coding a `Content-Encoding` value names (case-insensitive, surrounding whitespace
    /// ignored); nil for `identity`, for a coding Larder cannot decode, and for a list of
    /// several codings such as `gzip, br`.
    public init?(contentEncoding value: String) {
        guard let coding = Self.byName[value.trimmingWhitespace().lowercased()] else { return nil }
        self = coding
    }
}

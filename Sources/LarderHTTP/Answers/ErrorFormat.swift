/// How Larder writes its own error pages (``StatusPage``): HTML, or JSON for a client whose `Accept`
/// prefers `application/json` over `text/html` (an app's `fetch` of an API, say), so a script gets
/// an answer it can read.
public enum ErrorFormat: Sendable, Equatable {
    /// An HTML page.
    case html
    /// A JSON object.
    case json

    /// The format for a request with these `Accept` field values (RFC 9110 section 12.5.1). Each
    /// type gets the quality of the most specific range that matches it (`type/subtype`, then
    /// `type/*`, then `*/*`); JSON is chosen when its (quality, specificity) is higher than HTML's,
    /// so `application/json, */*` is JSON while `*/*` alone, a browser's navigation and no `Accept`
    /// at all are HTML.
    public init(accept values: [String]) {
        let ranges = values.flatMap { CacheControlDirectives.splitList($0) }.compactMap(MediaRange.init)
        let json = MediaRange.preference(of: ("application", "json"), in: ranges)
        let html = MediaRange.preference(of: ("text", "html"), in: ranges)
        self = json.quality > 0 && (json.quality, json.specificity) > (html.quality, html.specificity) ? .json : .html
    }

    /// One media range of an `Accept` field with its quality.
    private struct MediaRange {
        var type: Substring
        var subtype: Substring
        var quality: Double

        /// Parses `type/subtype;params` (parameters other than `q` are ignored); nil when malformed.
        init?(_ text: some StringProtocol) {
            let parts = text.split(separator: ";")
            let name = parts.first?.trimmingWhitespace().lowercased() ?? ""
            let halves = name.split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty else { return nil }
            self.type = halves[0]
            self.subtype = halves[1]
            self.quality = min(max(QualityValue.weight(parts.dropFirst().map { Substring($0) }) ?? 0, 0), 1)
        }

        /// How specifically this range names `type/subtype`: 3 exactly, 2 `type/*`, 1 `*/*`, 0 not.
        func specificity(for mediaType: (type: String, subtype: String)) -> Int {
            if self.type == mediaType.type {
                return self.subtype == mediaType.subtype ? 3 : (self.subtype == "*" ? 2 : 0)
            }
            return self.type == "*" && self.subtype == "*" ? 1 : 0
        }

        /// The quality `ranges` give `mediaType` and how specific the range that gives it is;
        /// (0, 0) when none matches.
        static func preference(of mediaType: (type: String, subtype: String), in ranges: [MediaRange]) -> (
            quality: Double, specificity: Int
        ) {
            var best: (quality: Double, specificity: Int) = (0, 0)
            for range in ranges {
                let specificity = range.specificity(for: mediaType)
                if specificity > best.specificity { best = (range.quality, specificity) }
            }
            return best
        }
    }
}

import LarderHTTP
import LarderStore

/// Short, file-name- and URL-safe names for games.
enum GameSlug {
    /// The root's last path segment, percent-decoded, lower-cased, with every run of characters
    /// outside `[a-z0-9]` turned into one `-` and `-` trimmed from the ends; the host when the
    /// root has no path, and `game` when nothing is left.
    static func make(root: HTTPURL) -> String {
        let segment = root.path.split(separator: "/").last.map(String.init) ?? ""
        // Invalid UTF-8 decodes to U+FFFD, and then becomes a `-`.
        let slug = Self.sanitised(PercentEncoding.decoded(Array(segment.utf8)))
        if !slug.isEmpty {
            return slug
        }
        let hostSlug = Self.sanitised(root.host)
        return hostSlug.isEmpty ? "game" : hostSlug
    }

    static func sanitised(_ text: String) -> String {
        var output = ""
        var pendingDash = false
        for scalar in text.lowercased().unicodeScalars {
            let isKept = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            if isKept {
                if pendingDash && !output.isEmpty {
                    output.append("-")
                }
                pendingDash = false
                output.unicodeScalars.append(scalar)
            } else {
                pendingDash = true
            }
        }
        return output
    }
}

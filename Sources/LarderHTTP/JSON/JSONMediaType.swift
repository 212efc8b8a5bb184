/// Whether a `Content-Type` says its body is JSON: `application/json`, `text/json` or any
/// `TYPE/SUBTYPE+json`, case-insensitively, parameters (such as `charset`) ignored. A body sent
/// as anything else (`text/plain`, a form) is not read as JSON where the sender's word matters
/// (docs/SERVING.md, "Who may queue a write").
public enum JSONMediaType {
    /// Whether `contentType` names JSON; nil (no `Content-Type`) does not.
    public static func names(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = Self.mediaType(of: contentType)
        if mediaType == "application/json" || mediaType == "text/json" {
            return true
        }
        let parts = mediaType.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].count > "+json".count && parts[1].hasSuffix("+json")
    }

    /// The media type of a `Content-Type` value, lower-cased, without parameters.
    public static func mediaType(of contentType: String) -> String {
        let beforeParameters = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return beforeParameters.trimmingUnicodeWhitespace().lowercased()
    }
}

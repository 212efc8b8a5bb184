import Foundation
import LarderHTTP
import LarderStore

extension CachedEntry {
    /// Whether this stored response answers a request with `headers` (``VaryKey/selects(storedHeaders:varyRequestHeaders:precached:for:)``).
    func isSelected(for headers: some HeaderFields) -> Bool {
        VaryKey.selects(
            storedHeaders: self.headers, varyRequestHeaders: self.varyRequestHeaders, precached: self.kind == .precached, for: headers)
    }
}

extension CachedEntry {
    /// Whether the stored response is an HTML document (`text/html` or XHTML): a page.
    var isHTML: Bool {
        guard let type = self.header("content-type")?.lowercased() else { return false }
        let mediaType = type.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        return mediaType == "text/html" || mediaType == "application/xhtml+xml"
    }
}

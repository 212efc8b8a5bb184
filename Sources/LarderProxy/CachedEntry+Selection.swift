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
    /// Whether the stored response is a page or data rather than a static asset: an HTML document
    /// (`text/html`, XHTML) or JSON (`application/json`, `*+json`), whatever its URL.
    var isPageOrData: Bool {
        guard let type = self.header("content-type")?.lowercased() else { return false }
        let mediaType = type.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        return ["text/html", "application/xhtml+xml", "application/json"].contains(mediaType) || mediaType.hasSuffix("+json")
    }
}

import LarderHTTP
import LarderStore

extension CachedEntry {
    /// Whether this stored response answers a request with `headers` (``VaryKey/selects(storedHeaders:varyRequestHeaders:precached:for:)``).
    func isSelected(for headers: some HeaderFields) -> Bool {
        VaryKey.selects(
            storedHeaders: self.headers, varyRequestHeaders: self.varyRequestHeaders, precached: self.kind == .precached, for: headers)
    }
}

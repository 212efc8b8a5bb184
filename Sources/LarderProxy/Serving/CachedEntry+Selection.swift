import Foundation
import LarderHTTP
import LarderStore

extension CachedEntry {
    /// Whether this stored response answers a request with `headers` from `owner`
    /// (``VaryKey/selects(storedHeaders:varyRequestHeaders:precached:for:owner:)``).
    func isSelected(for headers: some HeaderFields, owner: AnswerOwner) -> Bool {
        VaryKey.selects(
            storedHeaders: self.headers, varyRequestHeaders: self.varyRequestHeaders, precached: self.kind == .precached, for: headers,
            owner: owner)
    }

    /// Whether this is a personal answer, stored for one owner (``AnswerOwner``).
    var isPersonal: Bool {
        AnswerOwner.recordedDigest(in: self.varyRequestHeaders) != nil
    }
}

extension [CachedEntry] {
    /// The stored response that answers a request with `headers` from `owner`: the owner's own
    /// answer before a shared one, since an origin that personalises a page by its cookies
    /// rarely says `Vary: Cookie`; else the first selected.
    func selected(for headers: some HeaderFields, owner: AnswerOwner) -> CachedEntry? {
        var shared: CachedEntry?
        for entry in self where entry.isSelected(for: headers, owner: owner) {
            if entry.isPersonal { return entry }
            if shared == nil { shared = entry }
        }
        return shared
    }
}

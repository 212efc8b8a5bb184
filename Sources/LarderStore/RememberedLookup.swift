import Foundation

/// A lookup of a key's stored responses answered from memory (see ``Store/rememberedLookup(of:)``).
public struct RememberedLookup: Sendable {
    /// When a lookup stops holding: the change counts it was read under (this process's and the
    /// shared one, see ``IndexChangeCounter``), and the monotonic time (`systemUptime`) after
    /// which it is no longer trusted.
    public struct Validity: Sendable, Hashable {
        let stamp: EntryMemo.Stamp
        let trustedUntil: TimeInterval
    }

    /// The stored responses for the key, newest first.
    public let entries: [CachedEntry]
    /// How long this lookup holds.
    public let validity: Validity

    init(entries: [CachedEntry], stamp: EntryMemo.Stamp, trustedUntil: TimeInterval) {
        self.entries = entries
        self.validity = Validity(stamp: stamp, trustedUntil: trustedUntil)
    }
}

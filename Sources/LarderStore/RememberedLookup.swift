import Foundation

/// A lookup of a key's stored responses answered from memory (see ``Store/rememberedLookup(of:)``).
public struct RememberedLookup: Sendable {
    /// When a lookup stops holding: the index's change count it was read under, and the
    /// monotonic time (`systemUptime`) after which it is no longer trusted.
    public struct Validity: Sendable, Hashable {
        let generation: UInt64
        let trustedUntil: TimeInterval
    }

    /// The stored responses for the key, newest first.
    public let entries: [CachedEntry]
    /// How long this lookup holds.
    public let validity: Validity

    init(entries: [CachedEntry], generation: UInt64, trustedUntil: TimeInterval) {
        self.entries = entries
        self.validity = Validity(generation: generation, trustedUntil: trustedUntil)
    }
}

/// What the store holds under one key, as the precache planner needs it (see ``Store/storedStates(for:)``).
public struct StoredKeyState: Sendable, Hashable {
    /// Whether the entry is runtime or precached.
    public var kind: EntryKind
    /// The Workbox precache revision the body was fetched for, or nil.
    public var revision: String?
    /// The body's length in bytes (its body file is present with that size).
    public var bodySize: Int64

    /// Creates a stored key state.
    public init(kind: EntryKind, revision: String?, bodySize: Int64) {
        self.kind = kind
        self.revision = revision
        self.bodySize = bodySize
    }
}

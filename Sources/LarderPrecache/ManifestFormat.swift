/// Which kind of precache manifest a document is, detected from its content.
public enum ManifestFormat: String, Sendable, Hashable, CaseIterable {
    /// `{"files": [...], "skip": false}`: paths relative to the parent of the game root.
    case offlineMeta
    /// A Workbox precache manifest: an array of URL strings or `{"url", "revision"}` objects,
    /// relative to the manifest's folder.
    case workbox
    /// A Vite `.vite/manifest.json`: chunk objects with `file`, `css` and `assets`, relative to the
    /// folder holding `.vite`.
    case vite
}

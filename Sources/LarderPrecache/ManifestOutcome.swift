/// How fetching and parsing one game's manifest went, as the runner hands it to the planner.
public enum ManifestOutcome: Sendable, Hashable {
    /// The manifest was fetched and parsed.
    case parsed(PrecacheManifest)
    /// The manifest was fetched but cannot be used.
    case invalid(ManifestError)
    /// The manifest could not be fetched, e.g. `connection refused` or `timed out after 30 s`;
    /// the planner prefixes the manifest URL.
    case fetchFailed(reason: String)
}

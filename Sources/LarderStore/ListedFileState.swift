/// What became of one URL a manifest or games.txt listed.
public enum ListedFileState: String, Sendable, Codable {
    /// It is stored as a precached entry.
    case cached
    /// Fetching or storing it failed (the record's reason says why).
    case failed
    /// An `--exclude` glob left it out.
    case excluded
    /// It was not fetched because of where it points (e.g. another origin than the manifest).
    case refused
}

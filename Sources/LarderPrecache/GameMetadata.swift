import LarderHTTP

/// What a game's `metadata.json` says about it, as far as Larder uses it.
public struct GameMetadata: Sendable, Hashable {
    /// The game's display name, from the first non-empty string among `displayName`, `name` and `title`.
    public var displayName: String?

    /// The largest `metadata.json` read; a larger body gives no metadata.
    public static let maximumBodySize = 1024 * 1024

    /// Creates metadata.
    public init(displayName: String?) {
        self.displayName = displayName
    }

    /// Reads a `metadata.json` body. Never fails: a body that is not a JSON object, or has no
    /// usable name, gives metadata with no display name (the game is then shown by its slug).
    public static func parse(body: [UInt8]) -> GameMetadata {
        guard body.count <= Self.maximumBodySize, let document = try? JSONParser.parse(body) else {
            return GameMetadata(displayName: nil)
        }
        for field in ["displayName", "name", "title"] {
            if case .string(let value)? = document[member: field]?.kind {
                let name = value.trimmingUnicodeWhitespace()
                if !name.isEmpty {
                    return GameMetadata(displayName: name)
                }
            }
        }
        return GameMetadata(displayName: nil)
    }
}

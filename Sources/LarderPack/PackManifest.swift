/// The first file of every pack, `larder-pack.json`: what the pack holds and how to check it.
///
/// Times are seconds since 1970 (JSON numbers, fractions kept), as the index stores them.
/// docs/FORMATS.md ("Packs") describes every field.
public struct PackManifest: Codable, Sendable, Equatable {
    /// The archive name of this file: the pack's first entry.
    public static let fileName = "larder-pack.json"
    /// The value of ``format``: what tells a pack from any other tar.
    public static let formatName = "larder-pack"
    /// The format version this Larder writes and reads.
    public static let currentVersion = 1
    /// The largest manifest read (a pack of 100,000 entries needs a few tens of MiB).
    public static let maximumSize: Int64 = 256 << 20

    /// Always ``formatName``.
    public var format: String
    /// The format version (``currentVersion``); a reader refuses any other.
    public var version: Int
    /// When the pack was written.
    public var createdAt: Double
    /// The Larder that wrote it.
    public var larderVersion: String
    /// The games, with their records and file lists, in games.txt order.
    public var games: [PackGame]
    /// The pages games.txt lists on their own.
    public var pages: [PackPage]
    /// Every stored response in the pack: index rows whose bodies are in ``bodies``.
    public var entries: [PackEntry]
    /// Every body file in the archive after this one, in archive order, each once.
    public var bodies: [PackBody]
    /// What the games list named that the exporting cache did not have complete.
    public var missing: [PackMissing]
}

/// A game's record and file list, as the exporting cache had them.
public struct PackGame: Codable, Sendable, Equatable {
    public var slug: String
    public var root: String
    public var manifestURL: String
    public var displayName: String?
    /// `ready`, `partial`, `failed` or `skipped`.
    public var state: String
    public var filesListed: Int
    public var filesCached: Int
    public var bytes: Int64
    /// When the game was last precached (what decides which of two records is newer).
    public var lastRun: Double
    public var lastError: String?
    public var manifestRevision: String?
    public var listOrder: Int
    public var pageURL: String?
    /// The game's files, its page first.
    public var files: [PackGameFile]
    /// The keys of the entries installed with the game: its cached files (and their variants),
    /// its manifest and `metadata.json`.
    public var entryKeys: [String]
}

/// One file a game lists.
public struct PackGameFile: Codable, Sendable, Equatable {
    public var key: String
    public var url: String
    /// `cached`, `failed`, `excluded` or `refused`.
    public var state: String
    public var reason: String?
    public var revision: String?
}

/// A page games.txt lists on its own.
public struct PackPage: Codable, Sendable, Equatable {
    public var key: String
    public var url: String
    public var lastRun: Double
    /// The keys of its entries (the page and its variants).
    public var entryKeys: [String]
}

/// One stored response: an index row.
public struct PackEntry: Codable, Sendable, Equatable {
    public var key: String
    public var url: String
    public var status: Int
    /// The stored header fields, `[name, value]`, in order.
    public var headers: [[String]]
    /// The request header values it varies on, `[name, value]`.
    public var vary: [[String]]
    /// `precached` or `runtime`.
    public var kind: String
    /// The body's SHA-256, lower-case hex: its content address, and the body's name in the archive.
    public var sha256: String
    public var size: Int64
    public var requestTime: Double
    public var responseTime: Double
    public var storedAt: Double
    public var revision: String?
}

/// One body file in the archive.
public struct PackBody: Codable, Sendable, Equatable {
    /// `bodies/<sha256>`.
    public var name: String
    public var sha256: String
    public var size: Int64

    /// The archive name of the body with this hash.
    public static func name(for sha256: String) -> String {
        "bodies/" + sha256
    }
}

/// Something the games list named that the pack lacks, and why.
public struct PackMissing: Codable, Sendable, Equatable {
    /// The game's slug or root, or `page`.
    public var owner: String
    public var url: String
    public var reason: String
}

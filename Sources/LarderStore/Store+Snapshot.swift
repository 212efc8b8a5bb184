import GRDB
import LarderHTTP

/// The index as one read transaction saw it: every read through it sees the same committed state,
/// whatever other processes write meanwhile (SQLite WAL snapshot isolation).
///
/// Only valid inside ``Store/readSnapshot(_:)``'s closure. Body files are not part of the snapshot:
/// a body whose last entry another process removes after the snapshot began may be gone by the
/// time it is opened.
public struct IndexSnapshot {
    let store: Store
    let db: Database

    /// Every recorded game, by list order, then slug.
    public func games() throws -> [GameRecord] {
        try self.store.games(self.db)
    }

    /// The recorded game whose root is `root` (compared as ``Store/game(root:)`` does), or nil.
    public func game(root: String) throws -> GameRecord? {
        let wanted = Store.comparableRoot(root)
        return try self.games().first { Store.comparableRoot($0.root) == wanted }
    }

    /// The file list of the game `slug`, in order.
    public func gameFiles(slug: String) throws -> [GameFileRecord] {
        try self.store.gameFiles(self.db, slug: slug)
    }

    /// Every recorded page, by key.
    public func pages() throws -> [PrecachePageRecord] {
        try self.store.pages(self.db)
    }

    /// The entry stored under exactly `key`, or nil (also nil when its row is malformed; its body
    /// file is not looked at).
    public func entry(exactly key: String) throws -> CachedEntry? {
        try IndexRow.fetch(self.db, key: key).flatMap { self.store.decode($0) }
    }

    /// The entries stored for `key`: the one under the key itself and its variants (`KEY#vary=...`),
    /// in key order. Body files are not looked at.
    public func entries(for key: CacheKey) throws -> [CachedEntry] {
        let variants = key.variantKeys
        return try IndexRow.fetchAll(
            self.db,
            where: "key = ? OR (key >= ? AND key < ?) ORDER BY key",
            arguments: [key.rawValue, variants.lowerBound, variants.upperBound]
        ).compactMap { self.store.decode($0) }
    }
}

extension Store {
    /// Runs `body` inside one read transaction of the index (``IndexSnapshot``).
    public func readSnapshot<T: Sendable>(_ body: @escaping @Sendable (IndexSnapshot) throws -> T) async throws -> T {
        try await self.pool.read { db in
            try body(IndexSnapshot(store: self, db: db))
        }
    }
}

import GRDB

/// The index schema, as GRDB migrations.
enum StoreSchema {
    /// The migrations, in order. A migration, once released, never changes: add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE entry (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        url TEXT NOT NULL,
                        status INTEGER NOT NULL,
                        headers TEXT NOT NULL,
                        vary TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        body_hash TEXT NOT NULL,
                        body_size INTEGER NOT NULL,
                        request_time REAL NOT NULL,
                        response_time REAL NOT NULL,
                        stored_at REAL NOT NULL,
                        last_used REAL NOT NULL,
                        content_type TEXT
                    );
                    CREATE INDEX entry_body_hash ON entry(body_hash);
                    CREATE INDEX entry_kind ON entry(kind);
                    CREATE INDEX entry_last_used ON entry(last_used);
                    """
            )
        }
        return migrator
    }
}

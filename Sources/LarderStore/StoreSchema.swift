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
        // Precache records, and the Workbox revision of an entry. Only adds a column and tables, so it
        // costs the same for any cache size.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    ALTER TABLE entry ADD COLUMN revision TEXT;
                    CREATE TABLE game (
                        slug TEXT PRIMARY KEY NOT NULL,
                        root TEXT NOT NULL,
                        manifest_url TEXT NOT NULL,
                        display_name TEXT,
                        state TEXT NOT NULL,
                        files_listed INTEGER NOT NULL,
                        files_cached INTEGER NOT NULL,
                        bytes INTEGER NOT NULL,
                        last_run REAL NOT NULL,
                        last_error TEXT,
                        manifest_revision TEXT,
                        list_order INTEGER NOT NULL
                    );
                    CREATE INDEX game_list_order ON game(list_order, slug);
                    CREATE TABLE game_file (
                        game_slug TEXT NOT NULL REFERENCES game(slug),
                        position INTEGER NOT NULL,
                        key TEXT NOT NULL,
                        url TEXT NOT NULL,
                        state TEXT NOT NULL,
                        reason TEXT,
                        revision TEXT,
                        PRIMARY KEY (game_slug, position)
                    );
                    CREATE INDEX game_file_key ON game_file(key);
                    CREATE TABLE precache_page (
                        key TEXT PRIMARY KEY NOT NULL,
                        url TEXT NOT NULL,
                        state TEXT NOT NULL,
                        reason TEXT,
                        last_run REAL NOT NULL
                    );
                    """
            )
        }
        return migrator
    }
}

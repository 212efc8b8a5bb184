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
        // Counters the triggers keep, so totals cost the same for any cache size; indexes for the entry
        // list's sort orders; a trigram index of the entry URLs for search. Filling them reads every
        // entry once, at this upgrade only.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: Self.v3Schema)
        }
        // Least-recently-used eviction reads runtime entries in last-use order from this index, so
        // each batch costs the same for any cache size.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: "CREATE INDEX entry_kind_last_used ON entry(kind, last_used)")
        }
        // Entries by key base (the key up to its query or variant suffix), newest first: offline
        // fallbacks find a response for the same path under another query (Store+KeyBase.swift).
        // Building it reads every entry once, at this upgrade only.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: "CREATE INDEX entry_key_base ON entry(\(Self.keyBase), response_time)")
        }
        // Atomic game updates: bodies a precache run fetched for a game's new version wait in
        // `staged_entry` (same columns as `entry`) until the whole version is in, then move to `entry`
        // in one transaction (`Sources/LarderStore/Store+GameVersions.swift`); and each game's page.
        // Only adds a table and a column, so it costs the same for any cache size.
        migrator.registerMigration("v6") { db in
            try db.execute(
                sql: """
                    CREATE TABLE staged_entry (
                        key TEXT PRIMARY KEY NOT NULL,
                        url TEXT NOT NULL,
                        status INTEGER NOT NULL,
                        headers TEXT NOT NULL,
                        vary TEXT NOT NULL,
                        body_hash TEXT NOT NULL,
                        body_size INTEGER NOT NULL,
                        request_time REAL NOT NULL,
                        response_time REAL NOT NULL,
                        revision TEXT,
                        content_type TEXT,
                        staged_at REAL NOT NULL
                    );
                    CREATE INDEX staged_entry_body_hash ON staged_entry(body_hash);
                    CREATE INDEX staged_entry_staged_at ON staged_entry(staged_at);
                    ALTER TABLE game ADD COLUMN page_url TEXT;
                    """
            )
        }
        // URLs added to precache from /dev/offline's offline misses: precached with their game (or,
        // without one, with every run). A new table, so it costs the same for any cache size.
        migrator.registerMigration("v7") { db in
            try db.execute(
                sql: """
                    CREATE TABLE extra_url (
                        url TEXT PRIMARY KEY NOT NULL,
                        game_slug TEXT,
                        added_at REAL NOT NULL
                    )
                    """
            )
        }
        // How each declared request (the config's `requests`) has fared, for its scheduler and
        // /dev/offline (Store+DeclaredRequests.swift). A new table, so it costs the same for any cache size.
        migrator.registerMigration("v8") { db in
            try db.execute(
                sql: """
                    CREATE TABLE declared_request (
                        name TEXT PRIMARY KEY NOT NULL,
                        method TEXT NOT NULL,
                        url TEXT NOT NULL,
                        key TEXT,
                        last_attempt REAL,
                        last_success REAL,
                        last_status INTEGER,
                        last_error TEXT,
                        consecutive_failures INTEGER NOT NULL,
                        next_run REAL,
                        body_size INTEGER
                    )
                    """
            )
        }
        // Dated series (games.txt `series` lines): one row per series and one per day in range, so
        // /dev/offline and `larder status` can say whether today is ready by the series' own zone.
        migrator.registerMigration("v9") { db in
            try db.execute(
                sql: """
                    CREATE TABLE series (
                        location TEXT PRIMARY KEY NOT NULL,
                        line TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        time_zone TEXT NOT NULL,
                        manifest_key TEXT,
                        last_run REAL NOT NULL,
                        last_error TEXT
                    ) WITHOUT ROWID;
                    CREATE TABLE series_day (
                        location TEXT NOT NULL,
                        day TEXT NOT NULL,
                        key TEXT NOT NULL,
                        url TEXT NOT NULL,
                        state TEXT NOT NULL,
                        reason TEXT,
                        PRIMARY KEY (location, day)
                    ) WITHOUT ROWID;
                    CREATE INDEX series_day_key ON series_day (key);
                    """
            )
        }
        // The offline write queue (Store+WriteQueue.swift): one row per queued write, its body in
        // `queue/<id>.body`. AUTOINCREMENT so an id is never reused: ids are the order of arrival,
        // and a dropped write's id never names another. `supersede_key` is the key's UTF-8 as a BLOB:
        // it holds a NUL, which text binding would cut at. A new table, so it costs the same for any cache size.
        migrator.registerMigration("v10") { db in
            try db.execute(
                sql: """
                    CREATE TABLE queued_write (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        origin TEXT NOT NULL,
                        method TEXT NOT NULL,
                        url TEXT NOT NULL,
                        headers TEXT NOT NULL,
                        body_size INTEGER NOT NULL,
                        supersede_key BLOB,
                        terminal INTEGER NOT NULL,
                        created_at REAL NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_attempt REAL,
                        last_error TEXT,
                        state TEXT NOT NULL,
                        dead_reason TEXT,
                        in_flight INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX queued_write_state_origin ON queued_write (state, origin, id);
                    CREATE INDEX queued_write_supersede_key ON queued_write (supersede_key) WHERE supersede_key IS NOT NULL;
                    """
            )
        }
        // Counters of the write queue per origin and state, kept by triggers in the transaction of
        // every change, so its limits are checked on each write, and /dev/offline counts it, at a
        // cost that does not grow with the queue (Store+WriteQueue.swift). Filling them reads the
        // queue once, at this upgrade only.
        migrator.registerMigration("v11") { db in
            try db.execute(sql: Self.v11Schema)
        }
        // v12: the CORS grant an origin last gave each page origin (Store+CORSGrants.swift).
        migrator.registerMigration("v12") { db in
            try db.execute(
                sql: """
                    CREATE TABLE cors_grant (
                        target TEXT NOT NULL,
                        page TEXT NOT NULL,
                        allow_origin TEXT NOT NULL,
                        allow_credentials INTEGER NOT NULL,
                        exposed_headers TEXT NOT NULL,
                        updated REAL NOT NULL,
                        PRIMARY KEY (target, page)
                    ) WITHOUT ROWID;
                    CREATE INDEX cors_grant_updated ON cors_grant (updated);
                    """)
        }
        // v13: the app's own body of a declared GraphQL request (Store+DeclaredRequests.swift).
        migrator.registerMigration("v13") { db in
            try db.execute(
                sql: """
                    CREATE TABLE declared_request_learned (
                        name TEXT PRIMARY KEY NOT NULL,
                        body TEXT NOT NULL,
                        learned_at REAL NOT NULL,
                        learned_from TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        // v14: the owner of a queued write (an ``AnswerOwner`` digest), so that only its owner, or
        // Larder's own machine, may drop or retry it. Writes queued before have none: only the
        // box's own user manages them, and their supersede keys, which lack an owner, are never
        // matched by a newer write's (both are delivered, in order). Only adds a column.
        migrator.registerMigration("v14") { db in
            try db.execute(sql: "ALTER TABLE queued_write ADD COLUMN owner TEXT")
        }
        // v15: the bodies keyed reads were asked with, for stand-ins (Store+RequestBodies.swift).
        migrator.registerMigration("v15") { db in
            try db.execute(sql: Self.v15Schema)
        }
        // v16: a staged body is made durable by its game version's switch, one barrier for the
        // version rather than one per install batch (Store+GameVersions.swift): `durable` is 0 until
        // then, so a run that finds such a row after an unclean stop fetches its body again rather
        // than trusting it. Rows staged before had their barrier. Only adds a column.
        migrator.registerMigration("v16") { db in
            try db.execute(sql: "ALTER TABLE staged_entry ADD COLUMN durable INTEGER NOT NULL DEFAULT 1")
        }
        // v17: the search text kept off the write that adds an entry (a game version's switch adds
        // thousands): a new entry's id waits in `entry_search_pending`, and the search indexes what
        // waits before it searches (Store+EntryList.swift). Only replaces triggers and adds a table.
        migrator.registerMigration("v17") { db in
            try db.execute(sql: Self.v17Schema)
        }
        return migrator
    }

    /// The base of an entry's key in SQL: up to the first `?` or `#` (``CacheKey/base``). Queries
    /// must spell it exactly so for SQLite to use the `entry_key_base` index.
    static let keyBase = """
        CASE WHEN instr(key, '?') > 0 THEN substr(key, 1, instr(key, '?') - 1) \
        WHEN instr(key, '#') > 0 THEN substr(key, 1, instr(key, '#') - 1) ELSE key END
        """

    /// Migration v17: `entry_search_pending`, and the triggers of v3 that touched the search index
    /// on every insert, delete and change of URL, made to leave a waiting entry's text alone (it is
    /// read from `entry` when it is indexed).
    private static let v17Schema = """
        CREATE TABLE entry_search_pending (id INTEGER PRIMARY KEY);
        DROP TRIGGER entry_inserted;
        CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
            INSERT INTO entry_totals (kind, entries, bytes) VALUES (NEW.kind, 1, NEW.body_size)
                ON CONFLICT (kind) DO UPDATE SET entries = entries + 1, bytes = bytes + excluded.bytes;
            INSERT INTO body_reference (hash, size, entries) VALUES (NEW.body_hash, NEW.body_size, 1)
                ON CONFLICT (hash) DO UPDATE SET entries = entries + 1;
            INSERT INTO entry_search_pending (id) VALUES (NEW.id);
        END;
        DROP TRIGGER entry_deleted;
        CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE entry_totals SET entries = entries - 1, bytes = bytes - OLD.body_size WHERE kind = OLD.kind;
            UPDATE body_reference SET entries = entries - 1 WHERE hash = OLD.body_hash;
            DELETE FROM body_reference WHERE hash = OLD.body_hash AND entries <= 0;
            INSERT INTO entry_search (entry_search, rowid, url)
                SELECT 'delete', OLD.id, OLD.url WHERE NOT EXISTS (SELECT 1 FROM entry_search_pending WHERE id = OLD.id);
            DELETE FROM entry_search_pending WHERE id = OLD.id;
        END;
        DROP TRIGGER entry_url_updated;
        CREATE TRIGGER entry_url_updated AFTER UPDATE OF url ON entry
        WHEN OLD.url IS NOT NEW.url AND NOT EXISTS (SELECT 1 FROM entry_search_pending WHERE id = NEW.id) BEGIN
            INSERT INTO entry_search (entry_search, rowid, url) VALUES ('delete', OLD.id, OLD.url);
            INSERT INTO entry_search (rowid, url) VALUES (NEW.id, NEW.url);
        END;
        """

    /// Migration v15: `keyed_request_body`, the body each keyed answer was asked with, and the
    /// trigger that forgets it once no entry (nor variant) is left under its key.
    private static let v15Schema = """
        CREATE TABLE keyed_request_body (
            key TEXT PRIMARY KEY NOT NULL,
            content_type TEXT,
            body BLOB NOT NULL,
            stored_at REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE TRIGGER keyed_request_body_entry_deleted AFTER DELETE ON entry WHEN instr(OLD.key, '#') > 0 BEGIN
            DELETE FROM keyed_request_body
            WHERE key = (CASE WHEN instr(OLD.key, '#vary=') > 0 THEN substr(OLD.key, 1, instr(OLD.key, '#vary=') - 1) ELSE OLD.key END)
                AND NOT EXISTS (
                    SELECT 1 FROM entry WHERE entry.key = keyed_request_body.key
                        OR (entry.key >= keyed_request_body.key || '#vary=' AND entry.key < keyed_request_body.key || '#vary>'));
        END;
        """

    /// Migration v11: `queued_write_totals` and the triggers that keep it. A row whose count
    /// reaches 0 is removed, so the table lists only the origins and states with writes.
    private static let v11Schema = """
        CREATE TABLE queued_write_totals (
            origin TEXT NOT NULL,
            state TEXT NOT NULL,
            writes INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            PRIMARY KEY (origin, state)
        ) WITHOUT ROWID;

        INSERT INTO queued_write_totals (origin, state, writes, bytes)
            SELECT origin, state, COUNT(*), SUM(body_size) FROM queued_write GROUP BY origin, state;

        CREATE TRIGGER queued_write_inserted AFTER INSERT ON queued_write BEGIN
            INSERT INTO queued_write_totals (origin, state, writes, bytes) VALUES (NEW.origin, NEW.state, 1, NEW.body_size)
                ON CONFLICT (origin, state) DO UPDATE SET writes = writes + 1, bytes = bytes + excluded.bytes;
        END;
        CREATE TRIGGER queued_write_deleted AFTER DELETE ON queued_write BEGIN
            UPDATE queued_write_totals SET writes = writes - 1, bytes = bytes - OLD.body_size
                WHERE origin = OLD.origin AND state = OLD.state;
            DELETE FROM queued_write_totals WHERE origin = OLD.origin AND state = OLD.state AND writes <= 0;
        END;
        CREATE TRIGGER queued_write_state_changed AFTER UPDATE OF state ON queued_write WHEN OLD.state IS NOT NEW.state BEGIN
            UPDATE queued_write_totals SET writes = writes - 1, bytes = bytes - OLD.body_size
                WHERE origin = OLD.origin AND state = OLD.state;
            DELETE FROM queued_write_totals WHERE origin = OLD.origin AND state = OLD.state AND writes <= 0;
            INSERT INTO queued_write_totals (origin, state, writes, bytes) VALUES (NEW.origin, NEW.state, 1, NEW.body_size)
                ON CONFLICT (origin, state) DO UPDATE SET writes = writes + 1, bytes = bytes + excluded.bytes;
        END;
        """

    /// Migration v3. `entry_search` is an external-content full-text index of `entry.url` (rowid =
    /// `entry.id`) with the trigram tokenizer (SQLite 3.34+), which folds case, so any substring of
    /// three characters or more is found from the index. The triggers keep it, and the counters, in
    /// the transaction of every entry change; FTS5's `'delete'` command needs the indexed value,
    /// which they give from `OLD`.
    private static let v3Schema = """
        CREATE INDEX entry_stored_at ON entry(stored_at);
        CREATE INDEX entry_body_size ON entry(body_size);

        CREATE TABLE entry_totals (
            kind TEXT PRIMARY KEY NOT NULL,
            entries INTEGER NOT NULL,
            bytes INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE body_reference (
            hash TEXT PRIMARY KEY NOT NULL,
            size INTEGER NOT NULL,
            entries INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE body_totals (
            id INTEGER PRIMARY KEY CHECK (id = 0),
            bodies INTEGER NOT NULL,
            bytes INTEGER NOT NULL
        );
        CREATE VIRTUAL TABLE entry_search USING fts5(
            url, content = 'entry', content_rowid = 'id', columnsize = 0, tokenize = 'trigram'
        );

        INSERT INTO entry_totals (kind, entries, bytes)
            SELECT kind, COUNT(*), SUM(body_size) FROM entry GROUP BY kind;
        INSERT INTO body_reference (hash, size, entries)
            SELECT body_hash, MAX(body_size), COUNT(*) FROM entry GROUP BY body_hash;
        INSERT INTO body_totals (id, bodies, bytes)
            SELECT 0, COUNT(*), COALESCE(SUM(size), 0) FROM body_reference;
        INSERT INTO entry_search (entry_search) VALUES ('rebuild');

        CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
            INSERT INTO entry_totals (kind, entries, bytes) VALUES (NEW.kind, 1, NEW.body_size)
                ON CONFLICT (kind) DO UPDATE SET entries = entries + 1, bytes = bytes + excluded.bytes;
            INSERT INTO body_reference (hash, size, entries) VALUES (NEW.body_hash, NEW.body_size, 1)
                ON CONFLICT (hash) DO UPDATE SET entries = entries + 1;
            INSERT INTO entry_search (rowid, url) VALUES (NEW.id, NEW.url);
        END;
        CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
            UPDATE entry_totals SET entries = entries - 1, bytes = bytes - OLD.body_size WHERE kind = OLD.kind;
            UPDATE body_reference SET entries = entries - 1 WHERE hash = OLD.body_hash;
            DELETE FROM body_reference WHERE hash = OLD.body_hash AND entries <= 0;
            INSERT INTO entry_search (entry_search, rowid, url) VALUES ('delete', OLD.id, OLD.url);
        END;
        CREATE TRIGGER entry_kind_or_size_updated AFTER UPDATE OF kind, body_size ON entry
        WHEN OLD.kind IS NOT NEW.kind OR OLD.body_size IS NOT NEW.body_size BEGIN
            UPDATE entry_totals SET entries = entries - 1, bytes = bytes - OLD.body_size WHERE kind = OLD.kind;
            INSERT INTO entry_totals (kind, entries, bytes) VALUES (NEW.kind, 1, NEW.body_size)
                ON CONFLICT (kind) DO UPDATE SET entries = entries + 1, bytes = bytes + excluded.bytes;
        END;
        CREATE TRIGGER entry_body_updated AFTER UPDATE OF body_hash, body_size ON entry
        WHEN OLD.body_hash IS NOT NEW.body_hash OR OLD.body_size IS NOT NEW.body_size BEGIN
            UPDATE body_reference SET entries = entries - 1 WHERE hash = OLD.body_hash;
            DELETE FROM body_reference WHERE hash = OLD.body_hash AND entries <= 0;
            INSERT INTO body_reference (hash, size, entries) VALUES (NEW.body_hash, NEW.body_size, 1)
                ON CONFLICT (hash) DO UPDATE SET entries = entries + 1;
        END;
        CREATE TRIGGER entry_url_updated AFTER UPDATE OF url ON entry WHEN OLD.url IS NOT NEW.url BEGIN
            INSERT INTO entry_search (entry_search, rowid, url) VALUES ('delete', OLD.id, OLD.url);
            INSERT INTO entry_search (rowid, url) VALUES (NEW.id, NEW.url);
        END;
        CREATE TRIGGER body_reference_inserted AFTER INSERT ON body_reference BEGIN
            UPDATE body_totals SET bodies = bodies + 1, bytes = bytes + NEW.size;
        END;
        CREATE TRIGGER body_reference_deleted AFTER DELETE ON body_reference BEGIN
            UPDATE body_totals SET bodies = bodies - 1, bytes = bytes - OLD.size;
        END;
        """
}

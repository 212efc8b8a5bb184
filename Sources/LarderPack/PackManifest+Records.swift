import LarderHTTP
import LarderStore

import struct Foundation.Date

/// Between the store's records and the manifest's: the manifest keeps every column, so an import
/// recreates the rows as the exporting cache had them.
extension PackEntry {
    /// The manifest's form of a stored entry.
    init(_ entry: CachedEntry) {
        self.init(
            key: entry.key.rawValue,
            url: entry.url,
            status: entry.status,
            headers: entry.headers.map { [$0.name, $0.value] },
            vary: entry.varyRequestHeaders.map { [$0.name, $0.value] },
            kind: entry.kind.rawValue,
            sha256: entry.bodyHash,
            size: entry.bodySize,
            requestTime: entry.requestTime.timeIntervalSince1970,
            responseTime: entry.responseTime.timeIntervalSince1970,
            storedAt: entry.storedAt.timeIntervalSince1970,
            revision: entry.revision
        )
    }

    /// The header fields, or nil when a pair is not `[name, value]`.
    var headerFields: [HeaderField]? { Self.fields(self.headers) }

    /// The varied request values, or nil when a pair is not `[name, value]`.
    var varyFields: [HeaderField]? { Self.fields(self.vary) }

    /// The head to store the entry with.
    var head: StoredResponseHead? {
        guard let headers = self.headerFields, let vary = self.varyFields else { return nil }
        return StoredResponseHead(
            url: self.url, status: self.status, headers: headers,
            requestTime: Date(timeIntervalSince1970: self.requestTime),
            responseTime: Date(timeIntervalSince1970: self.responseTime), varyRequestHeaders: vary)
    }

    /// What orders this copy against another (``NewerCopy``).
    var stamp: NewerCopy.Stamp {
        NewerCopy.Stamp(headers: self.headerFields ?? [], responseTime: Date(timeIntervalSince1970: self.responseTime))
    }

    private static func fields(_ pairs: [[String]]) -> [HeaderField]? {
        var fields: [HeaderField] = []
        for pair in pairs {
            guard pair.count == 2 else { return nil }
            fields.append(HeaderField(name: pair[0], value: pair[1]))
        }
        return fields
    }
}

extension PackGame {
    /// The manifest's form of a game record, its files and its entries' keys.
    init(_ record: GameRecord, files: [GameFileRecord], entryKeys: [String]) {
        self.init(
            slug: record.slug, root: record.root, manifestURL: record.manifestURL, displayName: record.displayName,
            state: record.state.rawValue, filesListed: record.filesListed, filesCached: record.filesCached, bytes: record.bytes,
            lastRun: record.lastRun.timeIntervalSince1970, lastError: record.lastError, manifestRevision: record.manifestRevision,
            listOrder: record.listOrder, pageURL: record.pageURL,
            files: files.map {
                PackGameFile(key: $0.key.rawValue, url: $0.url, state: $0.state.rawValue, reason: $0.reason, revision: $0.revision)
            },
            entryKeys: entryKeys
        )
    }

    /// The record to save, under `slug` (the importing cache's slug for the game), or nil when a
    /// state is unknown.
    func record(slug: String) -> GameRecord? {
        guard let state = GameState(rawValue: self.state) else { return nil }
        return GameRecord(
            slug: slug, root: self.root, manifestURL: self.manifestURL, displayName: self.displayName, state: state,
            filesListed: self.filesListed, filesCached: self.filesCached, bytes: self.bytes,
            lastRun: Date(timeIntervalSince1970: self.lastRun), lastError: self.lastError, manifestRevision: self.manifestRevision,
            listOrder: self.listOrder, pageURL: self.pageURL)
    }

    /// The file list to save, or nil when a state is unknown.
    var fileRecords: [GameFileRecord]? {
        var records: [GameFileRecord] = []
        for file in self.files {
            guard let state = ListedFileState(rawValue: file.state) else { return nil }
            records.append(
                GameFileRecord(
                    key: CacheKey(storedRawValue: file.key), url: file.url, state: state, reason: file.reason, revision: file.revision))
        }
        return records
    }

    /// What orders this version against the cache's (``NewerCopy``).
    var stamp: NewerCopy.GameStamp {
        NewerCopy.GameStamp(
            isComplete: self.state == GameState.ready.rawValue && self.filesCached == self.filesListed,
            lastRun: Date(timeIntervalSince1970: self.lastRun))
    }
}

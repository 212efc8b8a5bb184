import Foundation
import LarderHTTP
import Logging
import Synchronization

/// The routes **Answer offline** on /dev/offline adds (``AnsweredOffline``), kept in
/// `answer-offline.json` in the cache directory, which Larder reads at start and writes on each
/// change. A file a user broke is never overwritten: Larder serves without it, says why on
/// /dev/offline and in the log, and refuses changes until it is mended or removed.
public final class AnsweredOfflineRoutes: Sendable {
    /// The file's name in the cache directory.
    static let fileName = "answer-offline.json"

    /// The file.
    public var path: String { self.file.path }
    /// The entries, and their routes.
    private let file: OwnListFileStore<AnsweredOffline, [CacheRoute]>

    /// Reads `directory`'s file, if there is one.
    init(directory: String, logger: Logger) {
        self.file = OwnListFileStore(
            path: directory + "/" + Self.fileName, what: "the Answer offline routes", withoutIt: "Larder serves without it",
            logger: logger, derive: { $0.entries.map(\.route) })
    }

    /// The route that covers `key`, if one was added.
    func route(for key: CacheKey) -> CacheRoute? {
        self.file.read { _, routes, _ in routes.first { $0.matches(key) } }
    }

    /// The entries, oldest first, and why the file could not be read.
    public var current: (entries: [AnsweredOffline.Entry], problem: String?) {
        self.file.read { list, _, problem in (list.entries, problem) }
    }

    /// Why a change was not made.
    public typealias ChangeError = OwnListFileChangeError

    /// Adds `entry` (false: it was there) and writes the file.
    public func add(_ entry: AnsweredOffline.Entry) throws(ChangeError) -> Bool {
        try self.file.change { list in
            guard !list.entries.contains(entry) else { return false }
            list.entries.append(entry)
            return true
        }
    }

    /// Removes `entry` (false: it was not there) and writes the file.
    public func remove(_ entry: AnsweredOffline.Entry) throws(ChangeError) -> Bool {
        try self.file.change { list in
            guard let index = list.entries.firstIndex(of: entry) else { return false }
            list.entries.remove(at: index)
            return true
        }
    }
}

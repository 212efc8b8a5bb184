import Foundation
import LarderHTTP
import Logging
import Synchronization

/// The sites whose `no-store` pages are kept for offline use (``KeptNoStore``): those the user
/// chose on /dev/offline, kept in `keep-no-store.json` in the cache directory, which Larder reads
/// at start and writes on each change; and, in memory only, the sites seen sending `no-store` to
/// the app (``NoStoreSightings``), which /dev/offline offers to keep. A file a user broke is never
/// overwritten: Larder keeps no site's pages, says why on /dev/offline and in the log, and refuses
/// changes until it is mended or removed.
public final class KeptNoStoreRegistry: Sendable {
    /// The file's name in the cache directory.
    static let fileName = "keep-no-store.json"

    /// The file.
    public var path: String { self.file.path }
    /// The chosen sites, and the set of them.
    private let file: OwnListFileStore<KeptNoStoreSites, Set<String>>
    /// The sites seen sending `no-store` to the app, in memory only.
    private let sightings = Mutex(NoStoreSightings())

    /// Reads `directory`'s file, if there is one.
    init(directory: String, logger: Logger) {
        self.file = OwnListFileStore(
            path: directory + "/" + Self.fileName, what: "the sites whose no-store pages are kept",
            withoutIt: "Larder keeps no site's no-store pages", logger: logger, derive: { Set($0.origins) })
    }

    /// Whether the user chose to keep `origin`'s `no-store` pages.
    func keeps(origin: String) -> Bool {
        self.file.read { _, chosen, _ in chosen.contains(origin) }
    }

    /// Notes that an app's GET to `url` got an answer not stored for `no-store` at `now`.
    func sawNoStore(url: HTTPURL, at now: Date) {
        self.sightings.withLock { $0.record(origin: url.origin, url: url.absoluteString, at: now) }
    }

    /// The chosen sites (the first chosen first) and when each was chosen (where known), the
    /// sites seen sending `no-store` that are not chosen (the most recent first), and why the
    /// file could not be read.
    public var current: (kept: [String], chosenAt: [String: Date], candidates: [NoStoreSightings.Site], problem: String?) {
        let seen = self.sightings.withLock { $0.all }
        return self.file.read { sites, chosen, problem in
            (sites.origins, sites.chosenAt, seen.filter { !chosen.contains($0.origin) }, problem)
        }
    }

    /// Why a change was not made.
    public typealias ChangeError = OwnListFileChangeError

    /// Keeps `origin`'s pages from now on (false: they were kept already), chosen at `now`, and
    /// writes the file.
    public func keep(origin: String, at now: Date) throws(ChangeError) -> Bool {
        try self.file.change { sites in
            guard !sites.origins.contains(origin) else { return false }
            sites.origins.append(origin)
            sites.chosenAt[origin] = now
            return true
        }
    }

    /// Stops keeping `origin`'s pages (false: they were not kept) and writes the file; the caller
    /// removes the copies kept so far.
    public func stopKeeping(origin: String) throws(ChangeError) -> Bool {
        try self.file.change { sites in
            guard let index = sites.origins.firstIndex(of: origin) else { return false }
            sites.origins.remove(at: index)
            sites.chosenAt[origin] = nil
            return true
        }
    }
}

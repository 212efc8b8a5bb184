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
    public let path: String
    private struct State {
        var sites = KeptNoStoreSites()
        var chosen: Set<String> = []
        /// Why the file could not be read (nil when it was, or there is none).
        var problem: String?
        var sightings = NoStoreSightings()
    }
    private let state: Mutex<State>

    /// Reads `directory`'s file, if there is one.
    init(directory: String, logger: Logger) {
        self.path = directory + "/" + Self.fileName
        var state = State()
        if let data = FileManager.default.contents(atPath: self.path) {
            do {
                state.sites = try KeptNoStoreSites(parsing: Array(data), file: self.path)
                state.chosen = Set(state.sites.origins)
            } catch {
                state.problem = "\(error); Larder keeps no site's no-store pages and will not change it until it is mended or removed"
                logger.error("cannot read the sites whose no-store pages are kept", metadata: ["problem": "\(error)"])
            }
        }
        self.state = Mutex(state)
    }

    /// Whether the user chose to keep `origin`'s `no-store` pages.
    func keeps(origin: String) -> Bool {
        self.state.withLock { $0.chosen.contains(origin) }
    }

    /// Notes that an app's GET to `url` got an answer not stored for `no-store` at `now`.
    func sawNoStore(url: HTTPURL, at now: Date) {
        self.state.withLock { $0.sightings.record(origin: url.origin, url: url.absoluteString, at: now) }
    }

    /// The chosen sites (the first chosen first) and when each was chosen (where known), the
    /// sites seen sending `no-store` that are not chosen (the most recent first), and why the
    /// file could not be read.
    public var current: (kept: [String], chosenAt: [String: Date], candidates: [NoStoreSightings.Site], problem: String?) {
        self.state.withLock { state in
            (
                state.sites.origins, state.sites.chosenAt, state.sightings.all.filter { !state.chosen.contains($0.origin) },
                state.problem
            )
        }
    }

    /// Why a change was not made.
    public struct ChangeError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Keeps `origin`'s pages from now on (false: they were kept already), chosen at `now`, and
    /// writes the file.
    public func keep(origin: String, at now: Date) throws(ChangeError) -> Bool {
        try self.change { sites in
            guard !sites.origins.contains(origin) else { return false }
            sites.origins.append(origin)
            sites.chosenAt[origin] = now
            return true
        }
    }

    /// Stops keeping `origin`'s pages (false: they were not kept) and writes the file; the caller
    /// removes the copies kept so far.
    public func stopKeeping(origin: String) throws(ChangeError) -> Bool {
        try self.change { sites in
            guard let index = sites.origins.firstIndex(of: origin) else { return false }
            sites.origins.remove(at: index)
            sites.chosenAt[origin] = nil
            return true
        }
    }

    private func change(_ body: (inout KeptNoStoreSites) -> Bool) throws(ChangeError) -> Bool {
        try self.state.withLock { (state: inout State) throws(ChangeError) -> Bool in
            if let problem = state.problem { throw ChangeError(description: problem) }
            var sites = state.sites
            guard body(&sites) else { return false }
            // Written whole beside it, then renamed over it: a crash leaves the old file or the new.
            let temporary = self.path + ".partial"
            guard FileManager.default.createFile(atPath: temporary, contents: Data(sites.bytes), attributes: [.posixPermissions: 0o600]),
                rename(temporary, self.path) == 0
            else {
                throw ChangeError(description: "cannot write \(self.path): \(String(cString: strerror(errno)))")
            }
            state.sites = sites
            state.chosen = Set(sites.origins)
            return true
        }
    }
}

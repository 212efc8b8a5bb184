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
    public let path: String
    private struct State {
        var list = AnsweredOffline()
        var routes: [CacheRoute] = []
        /// Why the file could not be read (nil when it was, or there is none).
        var problem: String?
    }
    private let state: Mutex<State>

    /// Reads `directory`'s file, if there is one.
    init(directory: String, logger: Logger) {
        self.path = directory + "/" + Self.fileName
        var state = State()
        if let data = FileManager.default.contents(atPath: self.path) {
            do {
                state.list = try AnsweredOffline(parsing: Array(data), file: self.path)
                state.routes = state.list.entries.map(\.route)
            } catch {
                state.problem = "\(error); Larder serves without it and will not change it until it is mended or removed"
                logger.error("cannot read the Answer offline routes", metadata: ["problem": "\(error)"])
            }
        }
        self.state = Mutex(state)
    }

    /// The route that covers `key`, if one was added.
    func route(for key: CacheKey) -> CacheRoute? {
        self.state.withLock { state in state.routes.first { $0.matches(key) } }
    }

    /// The entries, oldest first, and why the file could not be read.
    public var current: (entries: [AnsweredOffline.Entry], problem: String?) {
        self.state.withLock { ($0.list.entries, $0.problem) }
    }

    /// Why a change was not made.
    public struct ChangeError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Adds `entry` (false: it was there) and writes the file.
    public func add(_ entry: AnsweredOffline.Entry) throws(ChangeError) -> Bool {
        try self.change { list in
            guard !list.entries.contains(entry) else { return false }
            list.entries.append(entry)
            return true
        }
    }

    /// Removes `entry` (false: it was not there) and writes the file.
    public func remove(_ entry: AnsweredOffline.Entry) throws(ChangeError) -> Bool {
        try self.change { list in
            guard let index = list.entries.firstIndex(of: entry) else { return false }
            list.entries.remove(at: index)
            return true
        }
    }

    private func change(_ body: (inout AnsweredOffline) -> Bool) throws(ChangeError) -> Bool {
        try self.state.withLock { (state: inout State) throws(ChangeError) -> Bool in
            if let problem = state.problem { throw ChangeError(description: problem) }
            var list = state.list
            guard body(&list) else { return false }
            // Written whole beside it, then renamed over it: a crash leaves the old file or the new.
            let temporary = self.path + ".partial"
            let bytes = Data(list.bytes)
            guard FileManager.default.createFile(atPath: temporary, contents: bytes, attributes: [.posixPermissions: 0o600]),
                rename(temporary, self.path) == 0
            else {
                throw ChangeError(description: "cannot write \(self.path): \(String(cString: strerror(errno)))")
            }
            state.list = list
            state.routes = list.entries.map(\.route)
            return true
        }
    }
}

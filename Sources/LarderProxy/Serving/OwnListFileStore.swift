import Foundation
import LarderHTTP
import Logging
import Synchronization

/// Why a change to one of Larder's own list files was not made.
public struct OwnListFileChangeError: Error, CustomStringConvertible {
    public var description: String
}

/// One of Larder's own list files in the cache directory (``OwnListFile``: `answer-offline.json`,
/// `keep-no-store.json`), read at start and written whole on each change, and what is derived
/// from it for each request (kept beside it, so a request does not derive it again).
///
/// A file a user broke is never overwritten: the store holds nothing chosen, says why
/// (``problem``; and in the log at start), and refuses changes until it is mended or removed.
final class OwnListFileStore<Contents: OwnListFileContents, Derived: Sendable>: Sendable {
    /// The file.
    let path: String
    private let derive: @Sendable (Contents) -> Derived
    private struct State {
        var contents: Contents
        var derived: Derived
        /// Why the file could not be read (nil when it was, or there is none).
        var problem: String?
    }
    private let state: Mutex<State>

    /// Reads `path`, if there is such a file; `withoutIt` says what Larder does while it cannot
    /// (`Larder serves without it`), `what` names the file's contents in the log.
    init(path: String, what: String, withoutIt: String, logger: Logger, derive: @escaping @Sendable (Contents) -> Derived) {
        self.path = path
        self.derive = derive
        var contents = Contents()
        var problem: String?
        if let data = FileManager.default.contents(atPath: path) {
            do {
                contents = try Contents(parsing: Array(data), file: path)
            } catch {
                problem = "\(error); \(withoutIt) and will not change it until it is mended or removed"
                logger.error("cannot read \(what)", metadata: ["problem": "\(error)"])
            }
        }
        self.state = Mutex(State(contents: contents, derived: derive(contents), problem: problem))
    }

    /// `body` of the contents, what is derived from them, and why the file could not be read.
    func read<T>(_ body: (Contents, Derived, _ problem: String?) -> T) -> T {
        self.state.withLock { body($0.contents, $0.derived, $0.problem) }
    }

    /// Applies `body` to a copy of the contents; when it says it changed them, writes the file
    /// (whole beside it, then renamed over it: a crash leaves the old file or the new, mode 0600)
    /// and only then keeps them. False when nothing changed.
    func change(_ body: (inout Contents) -> Bool) throws(OwnListFileChangeError) -> Bool {
        try self.state.withLock { (state: inout State) throws(OwnListFileChangeError) -> Bool in
            if let problem = state.problem { throw OwnListFileChangeError(description: problem) }
            var contents = state.contents
            guard body(&contents) else { return false }
            let temporary = self.path + ".partial"
            guard
                FileManager.default.createFile(atPath: temporary, contents: Data(contents.bytes), attributes: [.posixPermissions: 0o600]),
                rename(temporary, self.path) == 0
            else {
                throw OwnListFileChangeError(description: "cannot write \(self.path): \(String(cString: strerror(errno)))")
            }
            state.contents = contents
            state.derived = self.derive(contents)
            return true
        }
    }
}

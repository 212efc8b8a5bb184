import Foundation
import LarderHTTP
import LarderStore
import Logging
import Synchronization

/// The bodies the app itself sends for declared GraphQL requests (``LearnedQuery``): read from
/// the store once, kept in memory, and stored again whenever the app sends a new one, so the
/// declared request follows the app's query across deploys and restarts (docs/SERVING.md,
/// "Following the app's query").
final class LearnedQueries: Sendable {
    private let store: Store
    private let logger: Logger
    /// Templates by declared request name; nil until read from the store.
    private let templates = Mutex<[String: JSONValue]?>(nil)

    init(store: Store, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// The learned templates by declared request name.
    func current() async -> [String: JSONValue] {
        if let known = self.templates.withLock({ $0 }) { return known }
        var read: [String: JSONValue] = [:]
        do {
            for (name, record) in try await self.store.learnedBodies() {
                if let value = try? JSONParser.parse(Array(record.body.utf8)) { read[name] = value }
            }
        } catch {
            self.logger.warning("cannot read the learned queries", metadata: ["error": "\(error)"])
            return [:]
        }
        return self.templates.withLock { templates in
            // A query learned while the store was read wins over the stored one.
            templates = read.merging(templates ?? [:]) { _, learned in learned }
            return templates ?? [:]
        }
    }

    /// Keeps `template` as what the app sends for the declared request `name`, from `source`.
    func learn(_ template: JSONValue, name: String, from source: String, at date: Date) async {
        _ = await self.current()
        let changed = self.templates.withLock { templates in
            if templates?[name] == template { return false }
            templates?[name] = template
            return true
        }
        guard changed else { return }
        self.logger.info("a declared request follows the app's query", metadata: ["name": "\(name)", "from": "\(source)"])
        do {
            try await self.store.saveLearnedBody(
                String(decoding: CanonicalJSON.bytes(of: template), as: UTF8.self), name: name, at: date, from: source)
        } catch {
            self.logger.warning("cannot keep a learned query", metadata: ["name": "\(name)", "error": "\(error)"])
        }
    }
}

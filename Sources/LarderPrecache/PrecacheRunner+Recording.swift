import Foundation
import LarderHTTP
import LarderStore
import Synchronization

/// What recording a game needs from the run besides the downloads' results.
struct RunContext: Sendable {
    var plan: PrecachePlan
    var manifests: [String: PrecacheRunner.FetchedManifest]
    /// What the store held for the planned keys when the run planned.
    var stored: [CacheKey: StoredKeyState]
    /// The time the games' records give as their last run.
    var lastRun: Date
}

/// A game as recorded, for the report.
struct RecordedGame: Sendable {
    var slug: String
    var report: PrecacheReport.Game
    /// Precached entries its previous version listed and nothing lists any more, removed.
    var removed: Int
}

/// The downloads' results as they come, and which games they complete: a game is recorded (and
/// switched to its new version) as soon as the last download it waits on has finished. A lock,
/// not an actor: a finished download is tallied without a hop to another executor.
final class RunTally: Sendable {
    private struct State {
        var waiting: [String: Int] = [:]
        var results: [CacheKey: Result<Int64, PrecacheRunner.DownloadFailure>] = [:]
        var recorded: [String: RecordedGame] = [:]
    }

    private let state: Mutex<State>

    init(_ fetches: [PlannedFetch]) {
        var state = State()
        for fetch in fetches {
            for slug in fetch.games {
                state.waiting[slug, default: 0] += 1
            }
        }
        self.state = Mutex(state)
    }

    /// The downloads' results so far, by key.
    var results: [CacheKey: Result<Int64, PrecacheRunner.DownloadFailure>] {
        self.state.withLock { $0.results }
    }

    /// The games recorded so far, by slug.
    var recorded: [String: RecordedGame] {
        self.state.withLock { $0.recorded }
    }

    /// Whether the game still waits on a download.
    func isWaiting(_ slug: String) -> Bool {
        self.state.withLock { $0.waiting[slug, default: 0] > 0 }
    }

    /// Records a download's result; returns the games whose last download it was.
    func finish(_ fetch: PlannedFetch, _ result: Result<Int64, PrecacheRunner.DownloadFailure>) -> [String] {
        self.state.withLock { state in
            state.results[fetch.key] = result
            var done: [String] = []
            for slug in fetch.games {
                state.waiting[slug, default: 1] -= 1
                if state.waiting[slug] == 0 {
                    done.append(slug)
                }
            }
            return done
        }
    }

    func add(_ game: RecordedGame) {
        self.state.withLock { $0.recorded[game.slug] = game }
    }
}

extension PrecacheRunner {
    /// Records one game once every download it waits on is done: a planned game's new version
    /// (switched to when complete, or when the recorded one is not; see
    /// ``Store/saveGameVersion(_:files:installing:)``), or a skipped or failed manifest, which keeps
    /// the recorded file list.
    func record(
        _ game: PlannedGame,
        order: Int,
        run: RunContext,
        results: [CacheKey: Result<Int64, DownloadFailure>]
    ) async -> RecordedGame {
        var files: [GameFileRecord] = []
        var failures: [PrecacheReport.Failure] = []
        var installing = Set(run.manifests[game.slug]?.stagedKeys ?? [])
        var cachedCount = 0
        var listed = 0
        var error: String?
        var state: GameState
        var revision: String?

        switch game.state {
        case .skipped:
            state = .skipped
        case .failed(let reason):
            state = .failed
            error = reason
        case .planned(let keys, _, _, _, let refused):
            var revisions: [CacheKey: String] = [:]
            if case .parsed(let manifest)? = run.manifests[game.slug]?.outcome {
                revision = manifest.revision
                for file in manifest.files where file.revision != nil {
                    revisions[file.key] = file.revision
                }
            }
            for key in keys {
                listed += 1
                switch results[key] {
                case .success?:
                    cachedCount += 1
                    installing.insert(key)
                    files.append(GameFileRecord(key: key, url: key.rawValue, state: .cached, reason: nil, revision: revisions[key]))
                case .failure(let failure)?:
                    failures.append(.init(url: key.rawValue, reason: failure.reason))
                    files.append(
                        GameFileRecord(key: key, url: key.rawValue, state: .failed, reason: failure.reason, revision: revisions[key]))
                case nil where run.plan.stagedKeys.contains(key):
                    cachedCount += 1
                    installing.insert(key)
                    files.append(GameFileRecord(key: key, url: key.rawValue, state: .cached, reason: nil, revision: revisions[key]))
                case nil:
                    if let stored = run.stored[key] {
                        cachedCount += 1
                        files.append(
                            GameFileRecord(
                                key: key, url: key.rawValue, state: .cached, reason: nil, revision: revisions[key] ?? stored.revision))
                    } else {
                        let reason = "not downloaded"
                        failures.append(.init(url: key.rawValue, reason: reason))
                        files.append(GameFileRecord(key: key, url: key.rawValue, state: .failed, reason: reason, revision: nil))
                    }
                }
            }
            for entry in refused {
                listed += 1
                failures.append(.init(url: entry.url, reason: entry.reason))
            }
            if cachedCount == listed {
                state = .ready
            } else if cachedCount > 0 {
                state = .partial
            } else {
                state = .failed
                error = "none of its \(listed) files could be cached"
            }
        }

        let displayName = run.manifests[game.slug]?.displayName
        let record = GameRecord(
            slug: game.slug,
            root: game.root.absoluteString,
            manifestURL: game.manifestURL.absoluteString,
            displayName: displayName,
            state: state,
            filesListed: listed,
            filesCached: cachedCount,
            bytes: 0,
            lastRun: run.lastRun,
            lastError: error ?? failures.first.map { "\($0.url): \($0.reason)" },
            manifestRevision: revision,
            listOrder: order,
            pageURL: game.page?.absoluteString
        )
        var saved = GameVersionOutcome(keptPrevious: false, record: record, vanished: [], removed: [])
        do {
            if case .planned = game.state {
                saved = try await self.store.saveGameVersion(record, files: files, installing: installing)
            } else {
                saved = try await self.store.saveGameKeepingFiles(record)
            }
        } catch {
            self.logger.error("cannot record game", metadata: ["game": "\(game.slug)", "error": "\(error)"])
        }
        failures += saved.vanished.map { .init(url: $0.url, reason: Store.vanishedReason) }
        let now = saved.record
        return RecordedGame(
            slug: game.slug,
            report: PrecacheReport.Game(
                slug: game.slug,
                displayName: displayName ?? now.displayName,
                root: game.root.absoluteString,
                state: PrecacheReport.Game.State(now.state),
                filesListed: now.filesListed,
                filesCached: now.filesCached,
                bytes: now.bytes,
                error: saved.keptPrevious || now.state == .failed ? now.lastError : error,
                failures: failures,
                previousVersionKept: saved.keptPrevious
            ),
            removed: saved.removed.count
        )
    }

    /// Records the pages the list names on their own; returns those that failed. A page whose
    /// refresh failed while a copy from an earlier run is stored stays recorded as cached (it is
    /// served offline), with the failure as its reason. A run that keeps runtime entries (a web
    /// page's job) records none: its pages are not the user's.
    func recordPages(
        plan: PrecachePlan,
        list: GamesList,
        stored: [CacheKey: StoredKeyState],
        results: [CacheKey: Result<Int64, DownloadFailure>]
    ) async -> [PrecacheReport.Failure] {
        let now = Date()
        let listedPages = Set(list.pageURLs.map { CacheKey(url: $0, filter: self.options.queryFilter) })
        var records: [PrecachePageRecord] = []
        var failures: [PrecacheReport.Failure] = []
        for fetch in plan.fetches where fetch.kind == .page && listedPages.contains(fetch.key) {
            let url = fetch.url.absoluteString
            switch results[fetch.key] {
            case .success?:
                records.append(PrecachePageRecord(key: fetch.key, url: url, state: .cached, reason: nil, lastRun: now))
            case .failure(let failure)?:
                failures.append(.init(url: url, reason: failure.reason))
                let kept = stored[fetch.key] != nil
                let reason = kept ? "not refreshed (\(failure.reason)); the copy from an earlier run stays" : failure.reason
                records.append(PrecachePageRecord(key: fetch.key, url: url, state: kept ? .cached : .failed, reason: reason, lastRun: now))
            case nil:
                break
            }
        }
        guard self.options.entryKind == .precached else { return failures }
        do {
            try await self.store.savePages(records)
        } catch {
            self.logger.error("cannot record pages", metadata: ["error": "\(error)"])
        }
        return failures
    }
}

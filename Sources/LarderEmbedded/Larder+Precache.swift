import LarderPrecache

extension Larder {
    /// Queues a precache of what `lines` name, in the grammar of a games.txt
    /// (Manifests/games.txt.md): pages, game roots, manifests, games with their page, dated series.
    /// Jobs run one at a time in the background of the running Larder, as `larder precache` would
    /// run them, and stop with it (running the same lines again fetches only what is missing).
    ///
    /// - Returns: The job's id, for ``precacheStatus(_:)`` and ``precacheReport(_:)``.
    /// - Throws: ``LarderError/notRunning``, or ``LarderError/nothingToPrecache(problems:)`` when
    ///   no line names anything (lines with problems among good ones are reported in the job's
    ///   report instead).
    public func precache(lines: [String]) throws(LarderError) -> String {
        let running = try self.running()
        let list = GamesList.parse(lines: lines, source: "precache")
        guard !list.entries.isEmpty else {
            throw .nothingToPrecache(problems: list.problems.map(\.description))
        }
        return running.jobs.submit(list, requestedBy: nil)
    }

    /// A precache job's progress: queued, running or finished, files to fetch and done, bytes, and
    /// once finished its report.
    ///
    /// - Throws: ``LarderError/notRunning``, or ``LarderError/unknownPrecacheJob(_:)``.
    public func precacheStatus(_ id: String) throws(LarderError) -> PrecacheJobs.Status {
        let status: PrecacheJobs.Status? = try self.running().jobs.status(id)
        guard let status else {
            throw .unknownPrecacheJob(id)
        }
        return status
    }

    /// Waits for a precache job to finish and returns its report: each game ready, partial or
    /// failed, every failed URL with its reason, and totals.
    ///
    /// - Throws: ``LarderError/notRunning`` (also when Larder stops first),
    ///   ``LarderError/unknownPrecacheJob(_:)``, or `CancellationError` when the calling task is
    ///   cancelled.
    public func precacheReport(_ id: String) async throws -> PrecacheReport {
        while true {
            if let report = try self.precacheStatus(id).report {
                return report
            }
            // Jobs report progress by polling too (GET /dev/offline/precache/ID); a tenth of a
            // second is nothing beside a download.
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

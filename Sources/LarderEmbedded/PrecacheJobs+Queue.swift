import LarderHTTP
import LarderPrecache
import LarderProxy
import LarderStore

/// The precache runner behind the running proxy's precache API.
extension PrecacheJobs: PrecacheJobQueue {
    public func submit(
        lines: [String], extraURLs: [ExtraURLRecord], source: String, requestedBy origin: String?, allowed: (HTTPURL) -> Bool
    ) -> PrecacheSubmission {
        var list = GamesList.parse(lines: lines, source: source)
        let problems = list.problems.map(\.description)
        for entry in list.entries {
            let urls: [HTTPURL]
            switch entry {
            case .page(let page, _): urls = [page]
            case .game(let game): urls = [game.manifestURL] + (game.page.map { [$0] } ?? [])
            case .series(let series): urls = series.sampleURLs
            }
            if let url = urls.first(where: { !allowed($0) }) {
                return .refused(url: url.absoluteString)
            }
        }
        let named = !list.entries.isEmpty
        list.add(extraURLs: extraURLs)
        // Lines that name nothing are a mistake; no lines at all ask for the extra URLs alone.
        guard named || (lines.isEmpty && !list.entries.isEmpty) else {
            return .nothingToPrecache(problems: problems)
        }
        return .queued(id: self.submit(list, requestedBy: origin), problems: problems)
    }

    public func status(_ id: String) -> PrecacheJobStatus? {
        guard let status: Status = self.status(id) else { return nil }
        return PrecacheJobStatus(
            id: status.id,
            state: status.state,
            requestedBy: status.requestedBy,
            filesToFetch: status.filesToFetch,
            filesDone: status.filesDone,
            filesFailed: status.filesFailed,
            bytes: status.bytes,
            report: status.report
        )
    }
}

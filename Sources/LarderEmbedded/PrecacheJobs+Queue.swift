import LarderHTTP
import LarderIntrospection
import LarderPrecache
import LarderProxy
import LarderStore

/// The precache runner behind the running proxy's precache API.
extension PrecacheJobs: PrecacheJobQueue {
    public func submit(
        lines: [String], extraURLs: [ExtraURLRecord], source: String, requestedBy origin: String?, reach: UpstreamReach?,
        allowed: (HTTPURL) -> Bool
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
        return .queued(id: self.submit(list, requestedBy: origin, reach: reach), problems: problems)
    }

    public func submitPageJob(
        lines: [String], origin: String, reach: UpstreamReach?, allowance: @escaping @Sendable () -> Int64
    ) -> PrecacheSubmission {
        var list = GamesList.parse(lines: lines, source: "request")
        var problems = list.problems.map(\.description)
        var pages: [GamesListEntry] = []
        for entry in list.entries {
            let named: String
            switch entry {
            case .page(let page, _):
                guard page.origin == origin else { return .refused(url: page.absoluteString) }
                pages.append(entry)
                continue
            case .game(let game):
                let urls = [game.manifestURL] + (game.page.map { [$0] } ?? [])
                if let url = urls.first(where: { $0.origin != origin }) { return .refused(url: url.absoluteString) }
                named = game.manifestURL.absoluteString
            case .series(let series):
                if let url = series.sampleURLs.first(where: { $0.origin != origin }) { return .refused(url: url.absoluteString) }
                named = series.line
            }
            problems.append("\(named): a page may precache pages only (page URL); games and series come from the user's own games.txt")
        }
        guard !pages.isEmpty else {
            return .nothingToPrecache(problems: problems)
        }
        list.entries = pages
        return .queued(id: self.submit(list, requestedBy: origin, reach: reach, pageAllowance: allowance), problems: problems)
    }

    public func status(_ id: String) -> PrecacheJobStatus<EncodedReport>? {
        let status: Status? = self.status(id)
        return status?.mapReport { EncodedReport($0) }
    }
}

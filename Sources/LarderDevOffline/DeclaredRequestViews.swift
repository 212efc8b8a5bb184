import Foundation

extension DevOfflineViews {
    /// The declared requests' rows of the overview.
    func declaredRequestRows(_ reports: [DeclaredRequestReport]) -> [[String: Any]] {
        reports.map { report in
            var row: [String: Any] = [
                "name": report.name,
                "method": report.method,
                "url": report.url.isEmpty ? "not sent yet" : report.url,
                "state": report.state,
                "lastError": Self.optional(report.lastError),
                "size": report.bodySize.map(HumanFormat.bytes) ?? "–",
                "lastSuccess": false,
                "nextRun": false,
                "learned": false,
            ]
            if let learnedAt = report.learnedAt {
                row["learned"] = self.times("learned", learnedAt).merging(["learnedFrom": report.learnedFrom ?? ""]) { first, _ in first }
            }
            if let success = report.lastSuccess {
                row["lastSuccess"] = self.times("success", success)
            }
            if let next = report.nextRun {
                row["nextRun"] = self.times("next", next)
            }
            return row
        }
    }
}

import Foundation

extension DevOfflineViews {
    /// The write queue's part of the overview: its note (counts, bytes, limits), the groups of
    /// this page, and links to the next and first pages.
    func writeQueueValues(_ report: WriteQueueReport) -> [String: Any] {
        var note = "\(report.pending) pending · \(report.deadLetters) dead-lettered · \(HumanFormat.bytes(report.bytes ?? 0))"
        if let maxWrites = report.maxWrites, let maxBytes = report.maxBytes {
            note += " of \(HumanFormat.bytes(maxBytes)), at most \(maxWrites) writes"
        }
        let listed = report.origins.reduce(0) { $0 + $1.writes.count }
        // Only a queue longer than a page says which part of it this is.
        let pageNote =
            report.after == nil && report.nextAfter == nil
            ? nil
            : "Showing \(listed) of \(report.pending + report.deadLetters) writes, by arrival\(report.after.map { " after #\($0)" } ?? "")."
        return [
            "writeQueueNote": note,
            "writeQueuePageNote": Self.optional(pageNote),
            "writeQueueGroups": self.writeQueueGroups(report),
            "writeQueueNextHref": Self.optional(report.nextAfter.map { "\(DevOfflinePages.root)?writesAfter=\($0)#queued-writes" }),
            "writeQueueFirstHref": Self.optional(report.after.map { _ in "\(DevOfflinePages.root)#queued-writes" }),
        ]
    }

    /// The write queue's groups of the overview, one per origin.
    func writeQueueGroups(_ report: WriteQueueReport) -> [[String: Any]] {
        report.origins.map { origin in
            var note = "\(origin.pending) pending"
            if origin.deadLetters > 0 { note += " · \(origin.deadLetters) dead-lettered" }
            if let failures = origin.consecutiveFailures, failures > 0 {
                note += " · \(failures) failed deliveries in a row"
                if let next = origin.nextAttempt { note += ", next try \(HumanFormat.relative(next, now: self.now))" }
            }
            return [
                "origin": origin.origin,
                "note": note,
                "hasWriteRows": !origin.writes.isEmpty,
                "writeRows": origin.writes.map { write -> [String: Any] in
                    var row = self.times("created", write.createdAt)
                    row["id"] = String(write.id)
                    row["method"] = write.method
                    row["url"] = write.url
                    row["state"] = write.state
                    row["attempts"] = String(write.attempts)
                    row["size"] = HumanFormat.bytes(write.bodySize)
                    row["why"] = Self.optional(write.deadReason ?? write.lastError)
                    row["terminal"] = write.terminal
                    return row
                },
            ]
        }
    }
}

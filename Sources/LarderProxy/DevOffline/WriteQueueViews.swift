import Foundation

extension DevOfflineViews {
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

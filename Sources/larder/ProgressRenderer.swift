import Foundation
import LarderPrecache

/// Shows a precache's progress on standard error: a redrawn bar on a terminal, plain lines
/// (every few seconds, and each failure) otherwise.
final class ProgressRenderer: @unchecked Sendable {
    // @unchecked: all state is behind `lock`; events arrive from the runner's worker tasks.
    private let interactive: Bool
    private let lock = NSLock()
    private let started = Date()
    private var total = 0
    private var done = 0
    private var failed = 0
    private var bytes: Int64 = 0
    private var currentGame = ""
    private var lastDraw = Date.distantPast

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func handle(_ event: PrecacheProgress) {
        self.lock.withLock {
            switch event {
            case .fetchingManifests(let count):
                self.write("precache: fetching \(count) manifest\(count == 1 ? "" : "s")\n")
            case .planned(let toFetch, let alreadyCached):
                self.total = toFetch
                self.write("precache: \(toFetch) file\(toFetch == 1 ? "" : "s") to download, \(alreadyCached) already cached\n")
            case .fileFinished(let url, let game, let size, let error):
                self.done += 1
                self.bytes += size
                if let game { self.currentGame = game }
                if let error {
                    self.failed += 1
                    self.write(self.interactive ? "\r\u{1B}[2K" : "")
                    self.write("precache: failed \(url): \(error)\n")
                    self.lastDraw = .distantPast
                }
                self.draw()
            case .finished:
                break
            }
        }
    }

    func finish() {
        self.lock.withLock {
            if self.interactive && self.total > 0 {
                self.lastDraw = .distantPast
                self.draw()
                self.write("\n")
            }
        }
    }

    private func draw() {
        let now = Date()
        let interval: TimeInterval = self.interactive ? 0.1 : 2
        guard now.timeIntervalSince(self.lastDraw) >= interval || self.done == self.total else { return }
        self.lastDraw = now
        let elapsed = max(now.timeIntervalSince(self.started), 0.001)
        let rate = Double(self.bytes) / elapsed
        let remaining = self.done > 0 ? elapsed / Double(self.done) * Double(self.total - self.done) : 0
        let status = "\(self.done)/\(self.total) files  \(ByteFormat.string(self.bytes))  \(ByteFormat.string(Int64(rate)))/s  ETA \(Self.duration(remaining))  \(self.currentGame)"
        if self.interactive {
            let width = 24
            let filled = self.total > 0 ? width * self.done / self.total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            self.write("\r\u{1B}[2K[\(bar)] \(status)")
        } else {
            self.write("precache: \(status)\n")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? "\(total / 3600)h\(total / 60 % 60)m" : "\(total / 60):\(String(format: "%02d", total % 60))"
    }
}

/// Human-readable byte counts (binary units).
enum ByteFormat {
    static func string(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}

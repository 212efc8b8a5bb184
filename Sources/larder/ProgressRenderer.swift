import Foundation
import LarderPrecache
import Synchronization

/// Shows a precache's progress on standard error: a redrawn bar on a terminal, plain lines
/// (every few seconds, and each failure) otherwise. Events arrive from the runner's worker tasks.
final class ProgressRenderer: Sendable {
    private struct State {
        var total = 0
        var done = 0
        var failed = 0
        var bytes: Int64 = 0
        /// What the last finished file was for: its game, else the file itself (a page, a
        /// series' day, an extra URL), so a series backlog never shows the last game's name.
        var currentItem = ""
        var lastDraw = Date.distantPast
    }

    private let interactive: Bool
    private let started = Date()
    // Drawing happens under the lock too, so lines never interleave.
    private let state = Mutex(State())

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func handle(_ event: PrecacheProgress) {
        self.state.withLock { state in
            switch event {
            case .fetchingManifests(let count):
                self.write("precache: fetching \(count) manifest\(count == 1 ? "" : "s")\n")
            case .planned(let toFetch, let alreadyCached):
                state.total = toFetch
                self.write("precache: \(toFetch) file\(toFetch == 1 ? "" : "s") to download, \(alreadyCached) already cached\n")
            case .fileFinished(let url, let game, let size, let error):
                state.done += 1
                state.bytes += size
                state.currentItem = game ?? Self.itemName(url)
                if let error {
                    state.failed += 1
                    self.write(self.interactive ? "\r\u{1B}[2K" : "")
                    self.write("precache: failed \(url): \(error)\n")
                    state.lastDraw = .distantPast
                }
                self.draw(&state)
            case .finished:
                break
            }
        }
    }

    func finish() {
        self.state.withLock { state in
            if self.interactive && state.total > 0 {
                state.lastDraw = .distantPast
                self.draw(&state)
                self.write("\n")
            }
        }
    }

    private func draw(_ state: inout State) {
        let now = Date()
        let interval: TimeInterval = self.interactive ? 0.1 : 2
        guard now.timeIntervalSince(state.lastDraw) >= interval || state.done == state.total else { return }
        state.lastDraw = now
        let elapsed = max(now.timeIntervalSince(self.started), 0.001)
        let rate = Double(state.bytes) / elapsed
        let remaining = state.done > 0 ? elapsed / Double(state.done) * Double(state.total - state.done) : 0
        let status =
            "\(state.done)/\(state.total) files  \(ByteFormat.string(state.bytes))  \(ByteFormat.string(Int64(rate)))/s  ETA \(Self.duration(remaining))  \(state.currentItem)"
        if self.interactive {
            let width = 24
            let filled = state.total > 0 ? width * state.done / state.total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            self.write("\r\u{1B}[2K[\(bar)] \(status)")
        } else {
            self.write("precache: \(status)\n")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// A file's name as the progress line shows it: the last segment of its path, else its host.
    static func itemName(_ url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let segments = path.split(separator: "/")
        guard segments.count > 2, let last = segments.last else { return segments.dropFirst().first.map(String.init) ?? url }
        return String(last)
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

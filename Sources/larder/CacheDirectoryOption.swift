import ArgumentParser
import Foundation

/// `--cache-dir`, shared by every subcommand.
struct CacheDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("cache-dir"),
        help: ArgumentHelp(
            "The cache directory.",
            discussion: "Default: $LARDER_CACHE_DIR, else $XDG_CACHE_HOME/larder, else ~/.cache/larder.",
            valueName: "dir"
        )
    )
    var path: String?

    /// The directory to use, resolved as docs/FORMATS.md (The cache directory) says.
    func resolved(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = self.path, !path.isEmpty { return path }
        if let path = environment["LARDER_CACHE_DIR"], !path.isEmpty { return path }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/larder" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/larder"
    }
}

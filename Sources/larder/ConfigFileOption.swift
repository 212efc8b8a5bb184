import ArgumentParser
import LarderConfig

/// `--config`, shared by `serve`, `precache`, `status` and `purge`.
struct ConfigFileOption: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "A larder.json config file (README, Configuration). Flags given as well win over it.",
            valueName: "file"
        )
    )
    var path: String?

    /// The file's settings, or Larder's defaults without `--config`; a file that cannot be read or
    /// is not a valid config is a usage error (exit status 2, see `EntryPoint`).
    func load() throws(ConfigFileError) -> LarderConfigFile {
        guard let path = self.path else {
            return LarderConfigFile()
        }
        return try LarderConfigFile(contentsOfFile: path)
    }
}

import LarderConfig
import LarderPrecache

/// The config file's settings for precache runs (the config module does not know the runner).
extension LarderConfigFile {
    /// Sets what the file sets of a precache run: excludes, cross-origin files, the query filter.
    public func apply(to options: inout PrecacheOptions) {
        options.excludes = self.precacheExcludes
        options.allowCrossOrigin = self.allowCrossOrigin
        options.queryFilter = self.queryFilter
    }
}

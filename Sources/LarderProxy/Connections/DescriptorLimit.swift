#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), which bounds how many
/// connections Larder can hold.
public enum DescriptorLimit {
    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
    /// `RLIM_INFINITY`, which Swift cannot import from Glibc (it is `-1` as an unsigned value).
    private static let infinity = rlim_t.max

    /// The soft limit now (1024 when it cannot be read).
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(self.resource, &limit) == 0 else { return 1024 }
        return limit.rlim_cur == self.infinity ? 1 << 20 : Int(limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit (the common soft limit of 1024 is a few hundred
    /// connections); returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(self.resource, &limit) == 0 else { return self.current }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(self.resource, &raised) != 0, limit.rlim_max == self.infinity {
                // Some systems refuse an infinite soft limit for descriptors; take a large finite one.
                raised.rlim_cur = 1 << 20
                _ = setrlimit(self.resource, &raised)
            }
        }
        return self.current
    }
}

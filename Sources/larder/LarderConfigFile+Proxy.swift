import LarderConfig
import LarderProxy

/// The config file's settings for the proxy (the config module does not know the proxy).
extension LarderConfigFile {
    /// Sets what the file sets of the proxy's configuration: routes, declared requests, navigation fallbacks, the
    /// write queue, the query filter, the size budget, the origins that may read `/dev/offline.json`, what LAN clients may
    /// reach of the box, the health checks.
    public func apply(to configuration: inout ProxyConfiguration) {
        configuration.routes = self.routes
        configuration.declaredRequests = self.declaredRequests
        configuration.navigationFallbacks = self.navigationFallbacks
        configuration.writeQueue = self.writeQueue
        configuration.statusOrigins = self.statusOrigins
        configuration.lanReach = self.lanReach
        configuration.queryFilter = self.queryFilter
        if let healthChecks = self.healthChecks {
            configuration.healthChecks = healthChecks
        }
        if let maxSize = self.maxSize {
            configuration.maxSize = maxSize
        }
    }
}

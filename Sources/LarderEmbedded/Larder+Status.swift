extension Larder {
    /// Where Larder listens, what its cache holds and what it has answered since it started.
    ///
    /// - Throws: ``LarderError/notRunning`` when it is not running; an error of the index when it
    ///   cannot be read.
    public func status() async throws -> LarderStatus {
        let running = try self.running()
        return LarderStatus(
            host: running.host,
            port: running.port,
            cacheDirectory: running.store.directory,
            offline: running.server.offline.isOffline,
            store: try await running.store.statistics(),
            answers: running.server.statistics.counts(),
            certificateAuthorityPath: running.certificateAuthorityPath
        )
    }

    /// Switches offline mode: when on, Larder answers from the cache only and never contacts
    /// origins (what is not cached gets a 504 page); the switch lasts until this start ends.
    ///
    /// - Throws: ``LarderError/notRunning`` when it is not running.
    public func setOffline(_ offline: Bool) throws(LarderError) {
        try self.running().server.offline.isOffline = offline
    }
}

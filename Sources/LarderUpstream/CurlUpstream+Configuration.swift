extension CurlUpstream {
    /// Settings shared by all transfers of one ``CurlUpstream``.
    public struct Configuration: Sendable {
        /// A PEM file of one or more CA certificates trusted in addition to the system CA store.
        ///
        /// Peer and host name verification are always on; this only widens what is trusted (e.g. a test or private CA).
        public var additionalCAFile: String?

        /// At most this many connections to one host (scheme, host and port); 0 is no limit.
        /// Transfers beyond the limit wait for a connection.
        public var maxConnectionsPerHost: Int

        /// At most this many open connections in total; 0 is no limit.
        public var maxTotalConnections: Int

        /// The `User-Agent` sent when a request has none of its own; `nil` sends none.
        public var userAgent: String?

        /// Creates a configuration.
        public init(
            additionalCAFile: String? = nil,
            maxConnectionsPerHost: Int = 0,
            maxTotalConnections: Int = 0,
            userAgent: String? = nil
        ) {
            self.additionalCAFile = additionalCAFile
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxTotalConnections = maxTotalConnections
            self.userAgent = userAgent
        }
    }

    /// A ``CurlUpstream`` could not be set up as configured.
    public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the setting or file.
        public var message: String

        /// Creates an error.
        public init(message: String) {
            self.message = message
        }

        /// The message.
        public var description: String {
            self.message
        }
    }
}

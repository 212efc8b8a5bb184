// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import CCurl
    import LarderUpstream

    /// libcurl's process-wide initialisation, done once before the first handle is made.
    enum CurlGlobal {
        /// Swift runs a static initialiser exactly once, even with concurrent first uses.
        private static let initializationResult: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

        /// Initialises libcurl if no one has yet.
        static func initialize() throws(UpstreamConfigurationError) {
            let result = Self.initializationResult
            guard result == CURLE_OK else {
                throw UpstreamConfigurationError(
                    message: "curl_global_init failed with curl error \(result.rawValue): "
                        + String(cString: curl_easy_strerror(result))
                )
            }
        }
    }
#endif

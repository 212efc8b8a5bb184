/// An upstream client (`CurlUpstream`, ``UpstreamConnector``) could not be set up as configured.
public struct UpstreamConfigurationError: Error, Sendable, CustomStringConvertible {
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

import LarderHTTP
import LarderStore

/// Why a manifest cannot be used; it fails that game, and nothing else.
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The manifest that was fetched.
    public var manifestURL: HTTPURL
    /// What is wrong with it, e.g. `answered HTTP 404` or `files[3] is a number, not a string`.
    public var problem: String

    /// Creates a manifest error.
    public init(manifestURL: HTTPURL, problem: String) {
        self.manifestURL = manifestURL
        self.problem = problem
    }

    /// `MANIFEST_URL: problem`.
    public var description: String {
        "\(self.manifestURL): \(self.problem)"
    }
}

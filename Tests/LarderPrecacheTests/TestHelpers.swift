import LarderHTTP
import LarderPrecache
import LarderStore

/// Parses a URL the test wrote; a typo fails the test rather than crashing it.
func httpURL(_ string: String) throws -> HTTPURL {
    try HTTPURL(parsing: string)
}

/// Parses a manifest served as `application/json` with status 200, unless told otherwise.
func parseManifest(
    _ json: String,
    manifestURL: String = "https://cdn.example/games/flipart/offline.meta.json",
    root: String = "https://cdn.example/games/flipart",
    allowCrossOrigin: Bool = false,
    status: Int = 200,
    contentType: String? = "application/json"
) throws -> PrecacheManifest {
    try PrecacheManifest.parse(
        status: status,
        contentType: contentType,
        body: Array(json.utf8),
        manifestURL: try httpURL(manifestURL),
        root: try httpURL(root),
        allowCrossOrigin: allowCrossOrigin
    )
}

/// The problem a manifest is rejected with, or nil if it parses.
func manifestProblem(
    _ json: String,
    status: Int = 200,
    contentType: String? = "application/json"
) throws -> String? {
    do {
        _ = try parseManifest(json, status: status, contentType: contentType)
        return nil
    } catch let error as ManifestError {
        return error.problem
    }
}

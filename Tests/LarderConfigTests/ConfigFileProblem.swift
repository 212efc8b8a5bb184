@testable import LarderConfig

extension LarderConfigFile {
    /// What reading `json` as `larder.json` says is wrong with it, or "no error".
    static func problem(parsing json: String) -> String {
        do {
            _ = try LarderConfigFile(parsing: Array(json.utf8), file: "larder.json")
            return "no error"
        } catch {
            return "\(error)"
        }
    }
}

import Foundation

/// The sites whose `no-store` pages the user chose to keep for offline use from /dev/offline
/// (**Keep this site's pages for offline use**, ``KeptNoStore``): Larder's own file,
/// `keep-no-store.json` in the cache directory (docs/FORMATS.md). None is kept until chosen.
///
/// ```json
/// {"sites": [{"chosenAt": "2026-11-28T22:00:00Z", "origin": "https://admin.example"}]}
/// ```
///
/// `chosenAt`, when the user pressed the button (/dev/offline says whether the misses stopped
/// since), is optional: a site may also be written as its origin alone (`"https://admin.example"`).
public struct KeptNoStoreSites: OwnListFileContents, Hashable {
    /// The origins (as ``HTTPURL/origin`` spells them), the first chosen first.
    public var origins: [String]
    /// When each origin was chosen, for those whose time is known.
    public var chosenAt: [String: Date]

    /// The list of `origins`, chosen at `chosenAt`.
    public init(origins: [String], chosenAt: [String: Date] = [:]) {
        self.origins = origins
        self.chosenAt = chosenAt
    }

    /// Why a file is not one Larder wrote.
    public typealias Problem = OwnListFile.Problem

    /// No site chosen.
    public init() {
        self.init(origins: [])
    }

    /// Reads the file's bytes; `file` names it in errors.
    public init(parsing bytes: [UInt8], file: String) throws(Problem) {
        let sites = try OwnListFile.elements(of: bytes, member: "sites", holding: "of origins", file: file)
        var origins: [String] = []
        var chosenAt: [String: Date] = [:]
        for (index, site) in sites.enumerated() {
            var text: String?
            var chosen: Date?
            switch site.kind {
            case .string(let origin):
                text = origin
            case .object(let members) where Set(members.map(\.name)).isSubset(of: ["origin", "chosenAt"]):
                if case .string(let origin)? = site[member: "origin"]?.kind { text = origin }
                if let value = site[member: "chosenAt"] {
                    guard case .string(let time) = value.kind, let date = try? Date(time, strategy: .iso8601) else {
                        throw Problem(description: "\(file):\(value.line): sites[\(index)].chosenAt: expected an ISO 8601 time")
                    }
                    chosen = date
                }
            default:
                break
            }
            guard let origin = text.flatMap(HTTPURL.canonicalOrigin) else {
                throw Problem(
                    description:
                        "\(file):\(site.line): sites[\(index)]: expected an http(s) origin such as \"https://app.example\", or {\"origin\": ..., \"chosenAt\": an ISO 8601 time}"
                )
            }
            if !origins.contains(origin) { origins.append(origin) }
            if let chosen { chosenAt[origin] = chosen }
        }
        self.origins = origins
        self.chosenAt = chosenAt
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        let sites = self.origins.map { origin in
            guard let chosen = self.chosenAt[origin] else { return JSONValue(.string(origin), line: 1) }
            return JSONValue(
                .object([
                    JSONMember(name: "origin", line: 1, value: JSONValue(.string(origin), line: 1)),
                    JSONMember(name: "chosenAt", line: 1, value: JSONValue(.string(chosen.formatted(.iso8601)), line: 1)),
                ]), line: 1)
        }
        return OwnListFile.bytes(member: "sites", elements: sites)
    }
}

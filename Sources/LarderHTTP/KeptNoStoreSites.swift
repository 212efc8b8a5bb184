/// The sites whose `no-store` pages the user chose to keep for offline use from /dev/offline
/// (**Keep this site's pages for offline use**, ``KeptNoStore``): Larder's own file,
/// `keep-no-store.json` in the cache directory (docs/FORMATS.md). None is kept until chosen.
///
/// ```json
/// {"sites": ["https://admin.example"]}
/// ```
public struct KeptNoStoreSites: Sendable, Hashable {
    /// The origins (as ``HTTPURL/origin`` spells them), the first chosen first.
    public var origins: [String]

    /// The list of `origins`.
    public init(origins: [String] = []) {
        self.origins = origins
    }

    /// Why a file is not one Larder wrote.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Reads the file's bytes; `file` names it in errors.
    public init(parsing bytes: [UInt8], file: String) throws(Problem) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw Problem(description: "\(file): \(error)")
        }
        guard case .object(let members) = value.kind, members.allSatisfy({ $0.name == "sites" }),
            case .array(let sites)? = value[member: "sites"]?.kind
        else {
            throw Problem(description: "\(file): expected an object with one member, \"sites\", an array of origins")
        }
        var origins: [String] = []
        for (index, site) in sites.enumerated() {
            guard case .string(let text) = site.kind, let origin = HTTPURL.canonicalOrigin(text) else {
                throw Problem(
                    description: "\(file):\(site.line): sites[\(index)]: expected an http(s) origin such as \"https://app.example\"")
            }
            if !origins.contains(origin) { origins.append(origin) }
        }
        self.origins = origins
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        let sites = self.origins.map { JSONValue(.string($0), line: 1) }
        return CanonicalJSON.bytes(
            of: JSONValue(.object([JSONMember(name: "sites", line: 1, value: JSONValue(.array(sites), line: 1))]), line: 1))
            + Array("\n".utf8)
    }
}

import Foundation
import LarderHTTP

/// A `larder.json` config file (`larder serve --config`, `larder precache --config`), read and
/// checked: unknown keys, wrong types and invalid values are errors naming the file, the line and
/// the key path. `Manifests/larder.config.schema.json` describes the same format.
public struct LarderConfigFile: Sendable {
    /// The top-level settings, in the order messages list them.
    public static let knownKeys = [
        "routes", "navigationFallback", "requests", "ignoreQueryParameters", "tunnel", "maxSize", "precache", "allowCrossOrigin",
        "statusOrigins", "queue", "upstreamProxy", "lan", "healthChecks", "$schema",
    ]

    /// `routes`: per-route strategies, in file order (the first matching a cache key applies).
    public var routes: [CacheRoute] = []
    /// `navigationFallback`: app shells for navigations with nothing stored while the origin cannot
    /// answer, one per origin (an object, or an array of them).
    public var navigationFallbacks: [NavigationFallback] = []
    /// `requests`: requests to keep fresh and answer the app with when the origin cannot, in file order.
    public var declaredRequests: [DeclaredRequest] = []
    /// `ignoreQueryParameters` as a filter; without it, the default (`utm_*`, `fbclid`).
    public var queryFilter: QueryParameterFilter = .default
    /// `tunnel`: host globs whose HTTPS is tunnelled untouched, as `--tunnel`.
    public var tunnelHosts: [String] = []
    /// `maxSize` in bytes (nil: not set).
    public var maxSize: Int64?
    /// `precache.exclude`: manifest files `larder precache` leaves out, as `--exclude`.
    public var precacheExcludes: [ExcludeGlob] = []
    /// `allowCrossOrigin`: whether manifests may list files on other origins.
    public var allowCrossOrigin = false
    /// `statusOrigins`: origins whose pages may read `/dev/offline.json`, normalised
    /// (`https://app.example`).
    public var statusOrigins: [String] = []
    /// `queue`: writes queued while their origin cannot answer, and how they are replayed.
    public var writeQueue = WriteQueueConfiguration()
    /// `upstreamProxy`: a parent proxy URL, or `none`, as `--upstream-proxy` (nil: not set, the
    /// proxy environment variables apply).
    public var upstreamProxy: UpstreamProxy.Choice?
    /// `lan.allowUpstream`: the box's own loopback and link-local addresses clients on other
    /// machines may still make Larder reach (docs/SERVING.md, "A shared box (LAN mode)").
    public var lanReach = UpstreamReach()
    /// `healthChecks`: the endpoints never answered from the cache while their origin cannot
    /// answer, replacing the common names (``HealthChecks/default``); nil when not set.
    public var healthChecks: HealthChecks?

    /// The settings of an empty file: Larder's defaults.
    public init() {}

    /// Reads the config file at `path`, which messages name as given.
    public init(contentsOfFile path: String) throws(ConfigFileError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigFileError(file: path, line: nil, message: "no readable file there")
        }
        try self.init(parsing: [UInt8](data), file: path)
    }

    /// Parses a config file's bytes; `file` names it in messages.
    public init(parsing bytes: [UInt8], file: String) throws(ConfigFileError) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw ConfigFileError(file: file, line: error.line, column: error.column, message: "invalid JSON: \(error.message)")
        }
        let reader = ConfigReader(file: file)
        let root = ConfigKeyPath.root
        let members = try reader.members(
            of: document,
            at: root,
            expected: "an object of settings",
            known: Self.knownKeys,
            noun: "a Larder setting"
        )
        if let schema = members["$schema"] {
            _ = try reader.string(schema.value, at: root.appending(member: "$schema"))
        }
        if let routes = members["routes"] {
            let path = root.appending(member: "routes")
            let elements = try reader.elements(of: routes.value, at: path, expected: "an array of route objects")
            for (index, element) in elements.enumerated() {
                self.routes.append(try CacheRoute(configValue: element, at: path.appending(index: index), reader: reader))
            }
        }
        if let fallback = members["navigationFallback"] {
            let path = root.appending(member: "navigationFallback")
            if case .array = fallback.value.kind {
                let elements = try reader.elements(of: fallback.value, at: path, expected: "an array of navigation fallback objects")
                for (index, element) in elements.enumerated() {
                    self.navigationFallbacks.append(
                        try NavigationFallback(configValue: element, at: path.appending(index: index), reader: reader))
                }
            } else {
                self.navigationFallbacks = [try NavigationFallback(configValue: fallback.value, at: path, reader: reader)]
            }
            var origins: Set<String> = []
            for shell in self.navigationFallbacks.map(\.shell) where !origins.insert(shell.origin).inserted {
                throw reader.error("names \(shell.origin) twice; give one app shell per origin", at: path, line: fallback.value.line)
            }
        }
        if let requests = members["requests"] {
            let path = root.appending(member: "requests")
            let directory = Self.directory(of: file)
            var names: [String: Int] = [:]
            for (index, element) in try reader.elements(of: requests.value, at: path, expected: "an array of request objects").enumerated()
            {
                let elementPath = path.appending(index: index)
                let request = try DeclaredRequest(configValue: element, at: elementPath, directory: directory, reader: reader)
                if let earlier = names.updateValue(element.line, forKey: request.name) {
                    throw reader.error(
                        "names \(request.name), as the request on line \(earlier) does; names must differ", at: elementPath,
                        line: element.line)
                }
                self.declaredRequests.append(request)
            }
        }
        if let parameters = members["ignoreQueryParameters"] {
            let patterns = try reader.strings(
                parameters.value,
                at: root.appending(member: "ignoreQueryParameters"),
                expected: "an array of query parameter names or globs",
                each: "a query parameter name or glob"
            )
            self.queryFilter = QueryParameterFilter(patterns: patterns)
        }
        if let tunnel = members["tunnel"] {
            self.tunnelHosts = try reader.strings(
                tunnel.value,
                at: root.appending(member: "tunnel"),
                expected: "an array of host globs",
                each: "a host glob"
            )
        }
        if let maxSize = members["maxSize"] {
            self.maxSize = try Self.size(maxSize.value, at: root.appending(member: "maxSize"), reader: reader)
        }
        if let precache = members["precache"] {
            let path = root.appending(member: "precache")
            let settings = try reader.members(
                of: precache.value,
                at: path,
                expected: "an object of precache settings",
                known: ["exclude"],
                noun: "a precache setting"
            )
            if let exclude = settings["exclude"] {
                self.precacheExcludes = try reader.strings(
                    exclude.value,
                    at: path.appending(member: "exclude"),
                    expected: "an array of URL globs",
                    each: "a URL glob"
                ).map(ExcludeGlob.init)
            }
        }
        if let allowCrossOrigin = members["allowCrossOrigin"] {
            self.allowCrossOrigin = try reader.bool(allowCrossOrigin.value, at: root.appending(member: "allowCrossOrigin"))
        }
        if let statusOrigins = members["statusOrigins"] {
            self.statusOrigins = try reader.origins(statusOrigins.value, at: root.appending(member: "statusOrigins"))
        }
        if let upstreamProxy = members["upstreamProxy"] {
            let path = root.appending(member: "upstreamProxy")
            let text = try reader.string(
                upstreamProxy.value, at: path, expected: "a proxy URL such as \"http://squid.lan:3128\", or \"none\"")
            do {
                self.upstreamProxy = try UpstreamProxy.Choice(parsing: text)
            } catch {
                throw reader.error("\(error)", at: path, line: upstreamProxy.value.line)
            }
        }
        if let healthChecks = members["healthChecks"] {
            let path = root.appending(member: "healthChecks")
            let expected = "a health check's path name such as \"healthz\", or a path such as \"/api/status\" (* for any characters)"
            var patterns: [String] = []
            for (index, element) in try reader.elements(
                of: healthChecks.value, at: path, expected: "an array of health-check names or paths"
            )
            .enumerated() {
                let text = try reader.string(element, at: path.appending(index: index), expected: expected)
                guard HealthChecks.isValid(text) else {
                    throw reader.mismatch(element, at: path.appending(index: index), expected: expected)
                }
                patterns.append(text)
            }
            self.healthChecks = HealthChecks(patterns: patterns)
        }
        if let queue = members["queue"] {
            self.writeQueue = try WriteQueueConfiguration(configValue: queue.value, at: root.appending(member: "queue"), reader: reader)
        }
        if let lan = members["lan"] {
            let path = root.appending(member: "lan")
            let settings = try reader.members(
                of: lan.value, at: path, expected: "an object of LAN settings", known: ["allowUpstream"], noun: "a LAN setting")
            if let allow = settings["allowUpstream"] {
                let expected =
                    "an address, network or address with a port, such as \"127.0.0.1:8000\", \"169.254.0.0/16\" or \"[::1]:8000\""
                let listPath = path.appending(member: "allowUpstream")
                for (index, element) in try reader.elements(of: allow.value, at: listPath, expected: "an array of addresses").enumerated() {
                    let text = try reader.string(element, at: listPath.appending(index: index), expected: expected)
                    guard let allowance = UpstreamReach.Allowance(parsing: text) else {
                        throw reader.mismatch(element, at: listPath.appending(index: index), expected: expected)
                    }
                    self.lanReach.allowed.append(allowance)
                }
            }
        }
    }

    /// The absolute folder that holds the config file `file` (relative paths in it are from there).
    private static func directory(of file: String) -> String {
        let folder = (file as NSString).deletingLastPathComponent
        if folder.hasPrefix("/") { return folder }
        return (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(folder)
    }

    /// `maxSize`: a size such as `"2GiB"` or `"512MB"`, or a whole number of bytes.
    static func size(_ value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) -> Int64 {
        let expected = "a size such as \"2GiB\" or \"512MB\", or a whole number of bytes"
        switch value.kind {
        case .string(let text):
            do {
                return try ByteSize(parsing: text).bytes
            } catch {
                throw reader.error("\(error)", at: path, line: value.line)
            }
        case .number(let number):
            guard let bytes = number.integerValue, bytes >= 0 else {
                throw reader.mismatch(value, at: path, expected: expected)
            }
            return bytes
        default:
            throw reader.mismatch(value, at: path, expected: expected)
        }
    }
}

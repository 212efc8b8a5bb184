import Foundation

/// The reads sent as POST (or QUERY) the user asked Larder to answer offline from /dev/offline
/// (**Answer offline**): Larder's own routes file, `answer-offline.json` in the cache directory
/// (docs/SERVING.md, "Answer offline"). Each is a route that keys the method's requests to one
/// URL by their bodies, as a config route with `cacheMethods` does; the config file's routes come
/// first.
///
/// ```json
/// {"routes": [{"match": "https://app.example/_dash-update-component", "cacheMethods": ["POST"], "bodyKey": "exact", "chosenAt": "2026-11-28T22:00:00Z"}]}
/// ```
///
/// `chosenAt`, when the user pressed the button (/dev/offline says whether the misses stopped
/// since), is optional: files written before it was kept still load.
public struct AnsweredOffline: OwnListFileContents, Hashable {
    /// One URL's requests of one method, keyed by their bodies.
    public struct Entry: Sendable, Hashable {
        /// The URL, without its query (the route matches the cache key's path too).
        public var url: String
        /// `POST` or `QUERY`.
        public var method: String
        /// When **Answer offline** was chosen for it (nil in a file written before Larder kept it).
        /// Not part of what the entry is: the same URL and method are the same entry whenever chosen.
        public var chosenAt: Date?

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.url == rhs.url && lhs.method == rhs.method
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(self.url)
            hasher.combine(self.method)
        }

        /// An entry; nil for a URL that is not http(s) or a method that may write.
        public init?(url: String, method: String, chosenAt: Date? = nil) {
            let method = method.uppercased()
            guard AnsweredOffline.methods.contains(method), let parsed = try? HTTPURL(parsing: url) else { return nil }
            var text = parsed.absoluteString
            if let query = text.firstIndex(of: "?") { text = String(text[..<query]) }
            guard !text.contains("*") else { return nil }
            self.url = text
            self.method = method
            self.chosenAt = chosenAt
        }

        /// The route it is: the URL's requests of its method keyed by their exact bodies.
        public var route: CacheRoute {
            CacheRoute(pattern: .glob(ExcludeGlob(self.url)), strategy: nil, cacheMethods: [self.method], bodyKey: .exact)
        }
    }

    /// The methods a read may be sent with: never one that writes.
    public static let methods: Set<String> = ["POST", "QUERY"]

    /// The entries, oldest first.
    public var entries: [Entry]

    /// The list of `entries`.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Why a file is not one Larder wrote.
    public typealias Problem = OwnListFile.Problem

    /// The list of no entries.
    public init() {
        self.entries = []
    }

    /// Reads the file's bytes; `file` names it in errors.
    public init(parsing bytes: [UInt8], file: String) throws(Problem) {
        let routes = try OwnListFile.elements(of: bytes, member: "routes", file: file)
        var entries: [Entry] = []
        for (index, route) in routes.enumerated() {
            let at = "\(file):\(route.line): routes[\(index)]"
            var chosenAt: Date?
            if case .string(let text)? = route[member: "chosenAt"]?.kind {
                chosenAt = try? Date(text, strategy: .iso8601)
            }
            var names: Set<String> = []
            if case .object(let fields) = route.kind { names = Set(fields.map(\.name)) }
            guard
                names == ["match", "cacheMethods", "bodyKey"]
                    || (names == ["match", "cacheMethods", "bodyKey", "chosenAt"] && chosenAt != nil),
                case .string(let url)? = route[member: "match"]?.kind,
                case .array(let methods)? = route[member: "cacheMethods"]?.kind, methods.count == 1,
                case .string(let method) = methods[0].kind,
                case .string("exact")? = route[member: "bodyKey"]?.kind
            else {
                throw Problem(
                    description:
                        "\(at): expected {\"match\": URL, \"cacheMethods\": [\"POST\" or \"QUERY\"], \"bodyKey\": \"exact\"}, and optionally \"chosenAt\": an ISO 8601 time"
                )
            }
            guard let entry = Entry(url: url, method: method, chosenAt: chosenAt) else {
                throw Problem(description: "\(at): \(method) \(url) is not an http(s) URL without * read with POST or QUERY")
            }
            if !entries.contains(entry) { entries.append(entry) }
        }
        self.entries = entries
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        let routes = self.entries.map { entry in
            var members = [
                JSONMember(name: "match", line: 1, value: JSONValue(.string(entry.url), line: 1)),
                JSONMember(name: "cacheMethods", line: 1, value: JSONValue(.array([JSONValue(.string(entry.method), line: 1)]), line: 1)),
                JSONMember(name: "bodyKey", line: 1, value: JSONValue(.string("exact"), line: 1)),
            ]
            if let chosenAt = entry.chosenAt {
                members.append(JSONMember(name: "chosenAt", line: 1, value: JSONValue(.string(chosenAt.formatted(.iso8601)), line: 1)))
            }
            return JSONValue(.object(members), line: 1)
        }
        return OwnListFile.bytes(member: "routes", elements: routes)
    }
}

import LarderHTTP

extension NavigationFallback {
    /// The settings a `navigationFallback` entry may have.
    static let configKeys = ["url", "allow", "deny"]

    /// Reads the `navigationFallback` entry at `path`: the shell page's absolute `url`, and
    /// optionally `allow` and `deny` URL globs.
    init(configValue value: JSONValue, at path: ConfigKeyPath, reader: ConfigReader) throws(ConfigFileError) {
        let members = try reader.members(
            of: value,
            at: path,
            expected: "a navigation fallback object",
            known: Self.configKeys,
            noun: "a navigation fallback setting"
        )
        guard let urlMember = members["url"] else {
            throw reader.error("needs url (the app shell page, an absolute http(s) URL)", at: path, line: value.line)
        }
        let urlPath = path.appending(member: "url")
        let text = try reader.nonEmptyString(urlMember.value, at: urlPath, expected: "an absolute http(s) URL")
        let shell: HTTPURL
        do {
            shell = try HTTPURL(parsing: text)
        } catch {
            throw reader.error("\(text.debugDescription) is not an absolute http(s) URL: \(error)", at: urlPath, line: urlMember.value.line)
        }
        func globs(_ name: String) throws(ConfigFileError) -> [ExcludeGlob] {
            guard let member = members[name] else { return [] }
            return try reader.strings(
                member.value,
                at: path.appending(member: name),
                expected: "an array of URL globs",
                each: "a URL glob"
            ).map(ExcludeGlob.init)
        }
        self.init(shell: shell, allow: try globs("allow"), deny: try globs("deny"))
    }
}

import LarderHTTP

extension ConfigReader {
    /// An array of origins such as `"https://app.example"` (scheme, host and port only), each
    /// normalised (``HTTPURL/canonicalOrigin(_:)``).
    func origins(_ value: JSONValue, at path: ConfigKeyPath) throws(ConfigFileError) -> [String] {
        let expected = "an origin such as \"https://app.example\" (scheme, host and port only)"
        var origins: [String] = []
        for (index, element) in try self.elements(of: value, at: path, expected: "an array of origins").enumerated() {
            let text = try self.string(element, at: path.appending(index: index), expected: expected)
            guard let origin = HTTPURL.canonicalOrigin(text) else {
                throw self.mismatch(element, at: path.appending(index: index), expected: expected)
            }
            origins.append(origin)
        }
        return origins
    }
}

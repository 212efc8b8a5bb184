extension HTTPURL {
    /// The origin `text` names (an `Origin` header, or an origin in a config file), normalised as
    /// ``origin`` is (scheme and host lower-cased, the default port dropped): `https://App.example:443`
    /// is `https://app.example`. Nil for `null`, another scheme, or anything with a path, query or
    /// fragment.
    public static func canonicalOrigin(_ text: String) -> String? {
        guard let url = try? HTTPURL(parsing: text + "/"), url.path == "/", url.query == nil, url.fragment == nil else {
            return nil
        }
        return url.origin
    }
}

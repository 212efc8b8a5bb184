extension StatusPage {
    /// The paragraph of an error page whose request matched a declared request whose answer was
    /// withheld from it (``DeclaredAnswerAccess``): the answer is the user's, and the page that
    /// sent the request (`pageOrigin`, from its `Origin` or `Referer`) is not listed for it.
    static func declaredWithheld(_ name: String, pageOrigin: String?) -> String {
        let page = pageOrigin.map { "this page's origin (\($0))" } ?? "the page that sent it (none was named)"
        let fix = pageOrigin.map { "add \"\($0)\" to its pageOrigins" } ?? "list the page's origin in its pageOrigins"
        return
            "The declared request \"\(name)\" has a stored answer for this request, but it was withheld: it is the user's, and \(page) is not among the pageOrigins listed for it. To answer it here, \(fix) in the config file."
    }
}

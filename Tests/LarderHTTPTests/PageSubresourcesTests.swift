import LarderHTTP
import Testing

/// Which scripts and styles a page names (`PageSubresources`): what a browser fetches on load.
struct PageSubresourcesTests {
    static let page = "https://app.example/play/index.html"

    @Test(arguments: [
        // Scripts by src, relative, root-relative and absolute; inline scripts name nothing.
        (#"<script src="app.js"></script><script>var x = "<script src='no.js'>";</script>"#, ["https://app.example/play/app.js"]),
        (#"<SCRIPT SRC=/js/main.js defer></SCRIPT>"#, ["https://app.example/js/main.js"]),
        (#"<script type=module src='https://app.example/m.js'></script>"#, ["https://app.example/m.js"]),
        // Styles and module preloads; other links name nothing a page needs to run.
        (
            #"<link rel="stylesheet" href="a.css"><link rel="icon" href="i.png"><link rel=modulepreload href=c.js><link rel="preload stylesheet" href="b.css">"#,
            ["https://app.example/play/a.css", "https://app.example/play/c.js", "https://app.example/play/b.css"]
        ),
        // Other origins are another cache's business; repeats and fragments count once.
        (
            #"<script src="https://cdn.example/x.js"></script><script src="a.js#x"></script><script src="a.js"></script>"#,
            ["https://app.example/play/a.js"]
        ),
        // Comments hide markup; <base href> moves relative URLs; entities are decoded.
        (
            #"<!-- <script src="old.js"></script> --><base href="/v2/"><script src="g.js?a=1&amp;b=2"></script>"#,
            ["https://app.example/v2/g.js?a=1&b=2"]
        ),
        // No src, an empty one, a data: URL, and markup cut short.
        (#"<script></script><script src=""></script><script src="data:text/javascript,1"></script><script src="cut"#, []),
    ])
    func namedSameOriginScriptsAndStyles(html: String, expected: [String]) throws {
        let page = try HTTPURL(parsing: Self.page)
        #expect(PageSubresources.named(in: Array(html.utf8), page: page).map(\.absoluteString) == expected)
    }

    @Test
    func boundedInBytesReadAndURLsYielded() throws {
        let page = try HTTPURL(parsing: Self.page)
        let many = (0..<200).map { "<script src=\"s\($0).js\"></script>" }.joined()
        #expect(PageSubresources.named(in: Array(many.utf8), page: page).count == PageSubresources.limit)
        let late = String(repeating: " ", count: PageSubresources.scannedBytes) + "<script src=\"late.js\"></script>"
        #expect(PageSubresources.named(in: Array(late.utf8), page: page).isEmpty)
    }
}

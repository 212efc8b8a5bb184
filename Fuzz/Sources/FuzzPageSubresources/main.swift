// Fuzzes the scan of a page for the scripts and styles it names (PageSubresources): any site's
// HTML reaches it.
//
// Input: the page's bytes.
import FuzzerDriver
import LarderHTTP

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let page = try! HTTPURL(parsing: "https://app.example/play/index.html")
    let named = PageSubresources.named(in: bytes, page: page)
    precondition(named.count <= PageSubresources.limit, "\(named.count) URLs")
    precondition(Set(named.map(\.absoluteString)).count == named.count, "a URL named twice")
    for url in named {
        precondition(url.origin == page.origin, "\(url.absoluteString) is another origin's")
        precondition(url.fragment == nil, "\(url.absoluteString) keeps its fragment")
    }
    // What lies past the scanned bytes changes nothing.
    if count > PageSubresources.scannedBytes {
        let scanned = UnsafeRawBufferPointer(rebasing: bytes.prefix(PageSubresources.scannedBytes))
        precondition(PageSubresources.named(in: scanned, page: page) == named, "bytes past the scan changed the result")
    }
    return 0
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))

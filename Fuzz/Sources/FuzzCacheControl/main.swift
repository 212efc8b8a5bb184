// Fuzzes the Cache-Control parser (response and request directives, Pragma).
//
// Input: field lines separated by newlines.
import FuzzerDriver

@testable import LarderHTTP

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let directives = CacheControlDirectives(lines)

    for name in ["max-age", "s-maxage", "min-fresh", "max-stale", "stale-while-revalidate", "stale-if-error"] {
        switch directives.seconds(name) {
        case nil:
            precondition(!directives.contains(name), "\(name) present without seconds")
        case .invalid?:
            precondition(directives.contains(name), "\(name) invalid but absent")
        case .value(let seconds)?:
            precondition((0...2_147_483_648).contains(seconds), "\(name)=\(seconds)")
            precondition(directives.argument(name).map { !$0.isEmpty } == true, "\(name)=\(seconds) without an argument")
        }
    }
    for item in lines.flatMap(CacheControlDirectives.splitList) {
        if let seconds = CacheControlDirectives.deltaSeconds(String(item)) {
            precondition((0...2_147_483_648).contains(seconds), "\(item) is \(seconds) seconds")
        }
    }

    // Several field lines mean the same as one joined with commas (RFC 9110 section 5.3), when no
    // line leaves a quoted string open. (ASCII only: the parser works on Characters, and a comma
    // followed by a combining mark is one Character, not a separator.)
    if !text.contains("\""), text.utf8.allSatisfy({ $0 < 0x80 }) {
        precondition(
            CacheControlDirectives([lines.joined(separator: ",")]) == directives,
            "the field lines \(lines) read differently joined"
        )
    }

    let request = RequestCacheDirectives(cacheControl: lines, pragma: lines)
    for seconds in [request.maxAge, request.minFresh, request.maxStale ?? nil] {
        precondition(seconds.map { (0...2_147_483_648).contains($0) } ?? true, "request directive \(String(describing: seconds))")
    }
    precondition(request.noCache == directives.contains("no-cache"), "no-cache")
    precondition(request.noStore == directives.contains("no-store"), "no-store")
    precondition((request.maxStale != nil) == directives.contains("max-stale"), "max-stale")
    let pragmaOnly = RequestCacheDirectives(cacheControl: [], pragma: lines)
    precondition(pragmaOnly.noCache == directives.contains("no-cache"), "Pragma: no-cache")
    return 0
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))

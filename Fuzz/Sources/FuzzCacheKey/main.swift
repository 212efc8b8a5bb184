// Fuzzes the cache-key normaliser: HTTPURL parsing, percent-encoding normalisation, dot-segment
// removal and the query-parameter filter.
//
// Input: a URL, then optionally lines of query-filter globs (without them, the default filter).
import FuzzerDriver

@testable import LarderHTTP

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let input = lines.removeFirst()
    let filter = lines.isEmpty ? QueryParameterFilter.default : QueryParameterFilter(patterns: lines)

    checkPercentEncoding(Array(input.utf8))
    // The filter's matcher agrees with a plain reference matcher.
    for pattern in filter.patterns.prefix(4) {
        let single = QueryParameterFilter(patterns: [pattern])
        for parameter in input.split(separator: "&").prefix(8) {
            let name = String(parameter.prefix(64))
            precondition(
                single.ignores(name) == globMatches(Array(pattern.utf8), Array(name.utf8)),
                "the query filter glob \(pattern.debugDescription) disagrees with the reference on \(name.debugDescription)"
            )
        }
    }

    guard let url = try? HTTPURL(parsing: input) else {
        return 0
    }
    checkParsed(url, input: input)

    // The URL's string form is a URL and means the same.
    let again: HTTPURL
    do {
        again = try HTTPURL(parsing: url.absoluteString)
    } catch {
        preconditionFailure("\(input.debugDescription) parses, but its string form does not: \(error)")
    }
    precondition(again.absoluteString == url.absoluteString, "\(url) reparses as \(again)")

    // Normalising is idempotent: a key is its own key.
    let key = CacheKey(url: url, filter: filter)
    let keyURL: HTTPURL
    do {
        keyURL = try HTTPURL(parsing: key.rawValue)
    } catch {
        preconditionFailure("the key of \(input.debugDescription), \(key), does not parse: \(error)")
    }
    let keyAgain = CacheKey(url: keyURL, filter: filter)
    precondition(keyAgain == key, "not idempotent: \(input.debugDescription) -> \(key) -> \(keyAgain)")
    precondition(keyURL.fragment == nil, "the key \(key) has a fragment")
    precondition(keyURL.port != keyURL.defaultPort, "the key \(key) has its default port")
    let segments = keyURL.path.split(separator: "/", omittingEmptySubsequences: false)
    precondition(!segments.contains("."), "the key \(key) has a . segment")
    precondition(!segments.contains(".."), "the key \(key) has a .. segment")
    if let query = keyURL.query {
        precondition(!query.isEmpty, "the key \(key) has an empty query")
        for parameter in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = parameter.prefix { $0 != "=" }
            precondition(!filter.ignores(PercentEncoding.decoded(Array(name.utf8))), "the key \(key) keeps \(name)")
        }
    }
    return 0
}

/// What HTTPURL promises about what it accepts.
func checkParsed(_ url: HTTPURL, input: String) {
    precondition(url.scheme == "http" || url.scheme == "https", "scheme \(url.scheme) from \(input.debugDescription)")
    precondition(!url.host.isEmpty, "empty host from \(input.debugDescription)")
    precondition(url.host == url.host.lowercased(), "host \(url.host) not lower-cased")
    precondition(url.port.map { (1...65535).contains($0) } ?? true, "port \(String(describing: url.port))")
    precondition(url.path.isEmpty || url.path.hasPrefix("/"), "path \(url.path.debugDescription)")
    let printable: (UInt8) -> Bool = { $0 > 0x20 && $0 < 0x7F }
    precondition(
        url.path.utf8.allSatisfy { printable($0) && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") },
        "path \(url.path.debugDescription)"
    )
    precondition(
        (url.query ?? "").utf8.allSatisfy { printable($0) && $0 != UInt8(ascii: "#") },
        "query \(String(describing: url.query))"
    )
    precondition((url.fragment ?? "").utf8.allSatisfy(printable), "fragment \(String(describing: url.fragment))")
}

/// Percent-encoding normalisation is idempotent and keeps what the bytes decode to.
func checkPercentEncoding(_ bytes: [UInt8]) {
    let normalized = PercentEncoding.normalized(bytes)
    precondition(PercentEncoding.normalized(normalized) == normalized, "normalising \(bytes) is not idempotent")
    precondition(
        PercentEncoding.decoded(normalized) == PercentEncoding.decoded(bytes),
        "normalising \(bytes) to \(normalized) changes what it decodes to"
    )
    if bytes.first == UInt8(ascii: "/") {
        let path = URLReference.removingDotSegments(bytes)
        precondition(URLReference.removingDotSegments(path) == path, "removing dot segments from \(bytes) is not idempotent")
    }
}

/// A plain dynamic-programming glob (`*` only), to check the filter's backtracking matcher.
func globMatches(_ pattern: [UInt8], _ name: [UInt8]) -> Bool {
    // matches[j]: whether the pattern so far matches name[..<j].
    var matches = [Bool](repeating: false, count: name.count + 1)
    matches[0] = true
    for byte in pattern {
        var next = [Bool](repeating: false, count: name.count + 1)
        if byte == UInt8(ascii: "*") {
            var any = false
            for j in 0...name.count {
                any = any || matches[j]
                next[j] = any
            }
        } else {
            for j in 0..<name.count where matches[j] && name[j] == byte {
                next[j + 1] = true
            }
        }
        matches = next
    }
    return matches[name.count]
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))

// Fuzzes the Range header parser, its resolution against body lengths, and If-Range.
//
// Input: a Range field value; after a newline, optionally an If-Range value.
import FuzzerDriver
import LarderHTTP

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let value = parts[0]
    if parts.count > 1 {
        let etag = "\"abc\""
        let modified = "Tue, 15 Nov 1994 08:12:31 GMT"
        let allowed = ByteRangeRequest.ifRangeAllowsRange(parts[1], etag: etag, lastModified: modified)
        if allowed, parts[1].contains(where: { $0 != " " && $0 != "\t" }) {
            precondition(!parts[1].hasPrefix("W/"), "a weak tag \(parts[1]) allows a range")
        }
    }

    guard let request = ByteRangeRequest(value) else {
        return 0
    }
    precondition(!request.specs.isEmpty, "no ranges from \(value.debugDescription)")
    for spec in request.specs {
        switch spec {
        case .from(let first, let last):
            precondition(first >= 0 && (last ?? first) >= first, "\(spec) from \(value.debugDescription)")
        case .suffix(let length):
            precondition(length >= 0, "\(spec) from \(value.debugDescription)")
        }
    }

    // Written back, the ranges read the same.
    let written =
        "bytes="
        + request.specs.map { spec in
            switch spec {
            case .from(let first, let last?): return "\(first)-\(last)"
            case .from(let first, nil): return "\(first)-"
            case .suffix(let length): return "-\(length)"
            }
        }.joined(separator: ",")
    precondition(ByteRangeRequest(written) == request, "\(value.debugDescription) written back as \(written) reads differently")

    var lengths: [Int64] = [0, 1, 2, 10, 10_000, Int64(Int32.max), Int64.max - 1, Int64.max]
    for spec in request.specs {
        switch spec {
        case .from(let first, let last):
            lengths += [first, first &+ 1, last ?? 0, (last ?? 0) &+ 1].filter { $0 >= 0 }
        case .suffix(let length):
            lengths += [length, length &+ 1, length &- 1].filter { $0 >= 0 }
        }
    }
    for length in lengths {
        switch request.resolve(length: length) {
        case .full:
            precondition(request.specs.count > 1, "one range \(value.debugDescription) answered in full")
        case .partial(let range):
            precondition(request.specs.count == 1, "several ranges answered with one")
            precondition(
                range.lowerBound >= 0 && range.upperBound <= length && !range.isEmpty,
                "\(value.debugDescription) for \(length) bytes is \(range)"
            )
            switch request.specs[0] {
            case .from(let first, let last):
                precondition(range.lowerBound == first, "\(range) does not start at \(first)")
                precondition(
                    last.map { range.upperBound == min($0, length - 1) + 1 } ?? (range.upperBound == length), "\(range) for \(length)")
            case .suffix(let suffix):
                precondition(
                    range.upperBound == length && range.upperBound - range.lowerBound == min(suffix, length),
                    "\(range) for -\(suffix) of \(length)")
            }
            _ = ByteRangeRequest.contentRange(range, length: length)
        case .unsatisfiable:
            precondition(request.specs.count == 1, "several ranges unsatisfiable")
            switch request.specs[0] {
            case .from(let first, _): precondition(first >= length, "\(value.debugDescription) unsatisfiable for \(length)")
            case .suffix(let suffix): precondition(suffix == 0 || length == 0, "\(value.debugDescription) unsatisfiable for \(length)")
            }
        }
    }
    return 0
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))

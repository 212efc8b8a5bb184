// Fuzzes the precache manifest parsers (offline.meta.json, Workbox, Vite) and the JSON parser
// under them.
//
// Input: one byte choosing the manifest's URL (which format it is named as), whether cross-origin
// entries are allowed and the Content-Type; then the body.
import FuzzerDriver
import LarderHTTP
import LarderPrecache

#if canImport(Glibc)
    import Glibc
#endif

enum Fixture {
    /// Where the manifest is, and its game root: for offline.meta.json, Vite and Workbox.
    static let contexts: [(manifest: HTTPURL, root: HTTPURL)] = [
        ("https://cdn.example/games/flipart/offline.meta.json", "https://cdn.example/games/flipart"),
        ("https://cdn.example/app/.vite/manifest.json", "https://cdn.example/app"),
        ("http://cdn.example:8080/sw/precache-manifest.json?v=3#top", "http://cdn.example:8080/sw/"),
    ].map { (try! HTTPURL(parsing: $0.0), try! HTTPURL(parsing: $0.1)) }
    static let contentTypes: [String?] = ["application/json", "application/manifest+json; charset=utf-8", "text/html", nil]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let selector = input.first else {
        return 0
    }
    let body = Array(input.dropFirst())
    checkJSON(body)

    let (manifestURL, root) = Fixture.contexts[Int(selector % 3)]
    let allowCrossOrigin = selector & 0x04 != 0
    let contentType = Fixture.contentTypes[Int(selector >> 3) % Fixture.contentTypes.count]
    let manifest: PrecacheManifest
    do {
        manifest = try PrecacheManifest.parse(
            status: 200,
            contentType: contentType,
            body: body,
            manifestURL: manifestURL,
            root: root,
            allowCrossOrigin: allowCrossOrigin
        )
    } catch {
        precondition(error.manifestURL == manifestURL && !error.problem.isEmpty, "error \(error)")
        return 0
    }
    precondition(JSONMediaType.names(contentType), "accepted as \(String(describing: contentType))")

    guard let document = try? JSONParser.parse(body) else {
        preconditionFailure("a manifest that is not JSON was accepted")
    }
    switch document.kind {
    case .array: precondition(manifest.format == .workbox, "an array read as \(manifest.format)")
    case .object: precondition(manifest.format != .workbox, "an object read as Workbox")
    default: preconditionFailure("a \(document.typeDescription) read as a manifest")
    }
    precondition(document[member: "files"] == nil || manifest.format == .offlineMeta, "files read as \(manifest.format)")
    precondition(!manifest.skip || manifest.format == .offlineMeta, "skip in a \(manifest.format) manifest")
    precondition(manifest.files.count <= PrecacheManifest.maximumEntryCount, "\(manifest.files.count) files")

    var keys: Set<CacheKey> = []
    for file in manifest.files {
        precondition(keys.insert(file.key).inserted, "\(file.key) twice")
        precondition(file.key == CacheKey(url: file.url), "\(file.url) stored under \(file.key)")
        precondition(file.url.scheme == "http" || file.url.scheme == "https", "\(file.url)")
        precondition(file.revision == nil || manifest.format == .workbox, "a revision in a \(manifest.format) manifest")
        if !allowCrossOrigin {
            precondition(
                file.url.scheme == manifestURL.scheme && file.url.host == manifestURL.host
                    && file.url.effectivePort == manifestURL.effectivePort,
                "cross-origin \(file.url) kept"
            )
        }
        guard let reread = try? CacheKey(url: file.key.rawValue) else {
            preconditionFailure("the key \(file.key) does not parse")
        }
        precondition(reread == file.key, "\(file.key) normalises again to \(reread)")
    }
    precondition(
        manifest.revision.utf8.count == 64
            && manifest.revision.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) },
        "revision \(manifest.revision)"
    )
    let reversed = PrecacheManifest(format: manifest.format, files: manifest.files.reversed(), skip: false, refused: [])
    precondition(reversed.revision == manifest.revision, "the revision depends on the files' order")
    return 0
}

/// A document's JSON parses as it is written back; errors point inside the document.
func checkJSON(_ bytes: [UInt8]) {
    let value: JSONValue
    do {
        value = try JSONParser.parse(bytes)
    } catch {
        precondition((0...bytes.count).contains(error.offset), "error offset \(error.offset) of \(bytes.count)")
        precondition(error.line >= 1 && error.column >= 1, "error at \(error.line):\(error.column)")
        return
    }
    var written = ""
    write(value, to: &written)
    let reread: JSONValue
    do {
        reread = try JSONParser.parse(Array(written.utf8))
    } catch {
        preconditionFailure("the document written back does not parse: \(error)\n\(written)")
    }
    var rewritten = ""
    write(reread, to: &rewritten)
    precondition(rewritten == written, "the document written back reads differently:\n\(written)\n\(rewritten)")
}

/// Compact JSON for a value (numbers as written); checks numbers' values on the way.
func write(_ value: JSONValue, to output: inout String) {
    switch value.kind {
    case .null:
        output += "null"
    case .bool(let bool):
        output += bool ? "true" : "false"
    case .number(let number):
        if let integer = number.integerValue {
            precondition(Double(integer) == number.value, "\(number) is \(integer) and \(number.value)")
        }
        output += number.text
    case .string(let string):
        write(string: string, to: &output)
    case .array(let elements):
        output += "["
        for (index, element) in elements.enumerated() {
            if index > 0 { output += "," }
            write(element, to: &output)
        }
        output += "]"
    case .object(let members):
        output += "{"
        for (index, member) in members.enumerated() {
            if index > 0 { output += "," }
            write(string: member.name, to: &output)
            output += ":"
            write(member.value, to: &output)
        }
        output += "}"
    }
}

func write(string: String, to output: inout String) {
    output += "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": output += "\\\""
        case "\\": output += "\\\\"
        case "\u{0}"..."\u{1F}":
            let hex = String(scalar.value, radix: 16)
            output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: output.unicodeScalars.append(scalar)
        }
    }
    output += "\""
}

exit(larder_fuzzer_main(CommandLine.argc, CommandLine.unsafeArgv, fuzz))

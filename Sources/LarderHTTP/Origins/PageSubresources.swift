import Foundation

/// The same-origin scripts and styles an HTML page names, which it cannot run without: every
/// `<script src>` and every `<link rel=stylesheet|modulepreload href>`, resolved against the
/// page's URL (or its `<base href>`), as a browser would fetch them on load. Used to tell whether a
/// stored page can load offline (docs/SERVING.md, "One version of a game"): a page naming a
/// script that is not stored is not ready, whatever its own entry says.
///
/// A scanner, not a parser: it reads tags and their attributes, skips comments, and ignores what
/// a script writes at run time. Bounded: at most ``scannedBytes`` of the page and ``limit`` URLs.
public enum PageSubresources {
    /// How much of a page is read: the head and the start of the body, where pages name what they load.
    public static let scannedBytes = 256 * 1024
    /// The most URLs one page yields.
    public static let limit = 64

    /// The same-origin URLs of the scripts and styles `html` (the page's first bytes) names, in
    /// order, without repeats.
    public static func named(in html: some Collection<UInt8>, page: HTTPURL) -> [HTTPURL] {
        let bytes = Array(html.prefix(Self.scannedBytes))
        var base = page
        var found: [HTTPURL] = []
        var seen: Set<String> = []
        var index = 0
        while index < bytes.count, found.count < Self.limit {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if bytes[index...].starts(with: Array("<!--".utf8)) {
                index = Self.end(of: Array("-->".utf8), in: bytes, from: index + 4)
                continue
            }
            let (name, attributes, next) = Self.tag(bytes, at: index + 1)
            index = next
            var reference: String?
            switch name {
            case "base":
                if let href = attributes["href"], let resolved = page.resolving(href) { base = resolved }
            case "script":
                reference = attributes["src"]
                // A script's text is not markup: skip to its end tag.
                index = Self.end(of: Array("</script".utf8), in: bytes, from: index, caseInsensitive: true)
            case "link":
                let relations = (attributes["rel"] ?? "").lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                if relations.contains("stylesheet") || relations.contains("modulepreload") { reference = attributes["href"] }
            default:
                break
            }
            guard let reference, !reference.isEmpty, let url = base.resolving(reference), url.origin == page.origin else { continue }
            var withoutFragment = url
            withoutFragment.fragment = nil
            if seen.insert(withoutFragment.absoluteString).inserted { found.append(withoutFragment) }
        }
        return found
    }

    /// The tag starting at `start` (just after `<`): its lower-cased name, its attributes
    /// (lower-cased names; the first of a repeated name wins) and the index after its `>`; no name
    /// when it has no `>`.
    private static func tag(_ bytes: [UInt8], at start: Int) -> (String, [String: String], Int) {
        var index = start
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        let name = String(decoding: bytes[start..<index], as: UTF8.self).lowercased()
        var attributes: [String: String] = [:]
        while index < bytes.count {
            while index < bytes.count, Self.isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "/") { index += 1 }
            guard index < bytes.count, bytes[index] != UInt8(ascii: ">") else { break }
            let nameStart = index
            while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ">") {
                index += 1
            }
            let attribute = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            var value = ""
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                    let quote = bytes[index]
                    let valueStart = index + 1
                    index = valueStart
                    while index < bytes.count, bytes[index] != quote { index += 1 }
                    value = String(decoding: bytes[valueStart..<min(index, bytes.count)], as: UTF8.self)
                    index = min(index + 1, bytes.count)
                } else {
                    let valueStart = index
                    while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                    value = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                }
            }
            if attributes[attribute] == nil { attributes[attribute] = Self.decodingEntities(value.trimmingWhitespace()) }
        }
        // A tag cut short (the scan's end, or the page's) is not one a browser acts on.
        guard index < bytes.count else { return ("", [:], bytes.count) }
        return (name, attributes, index + 1)
    }

    /// The index just after the first `marker` at or after `start`, or the end.
    private static func end(of marker: [UInt8], in bytes: [UInt8], from start: Int, caseInsensitive: Bool = false) -> Int {
        var index = start
        while index + marker.count <= bytes.count {
            var matches = true
            for offset in marker.indices {
                let byte = caseInsensitive ? Self.lowercased(bytes[index + offset]) : bytes[index + offset]
                if byte != marker[offset] {
                    matches = false
                    break
                }
            }
            if matches { return index + marker.count }
            index += 1
        }
        return bytes.count
    }

    /// `&amp;` and the other entities a URL attribute commonly holds.
    private static func decodingEntities(_ value: String) -> String {
        guard value.contains("&") else { return value }
        var result = value
        for (entity, character) in [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}

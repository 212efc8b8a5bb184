/// Whether the stored answer to one read sent with a body may stand in for another read of the
/// same method and URL while the origin cannot answer (docs/SERVING.md, "Reads whose bodies
/// change every time"): apps put the clock (`"end_time_ms": now`), a counter or a random
/// multipart boundary into every read, so the exact body never repeats.
///
/// Two bodies are near when they are the same in form and differ only in values that change with
/// every request (``ChangingValue`` of the same kind on both sides, or any value of a member or
/// field named as a counter, ``ChangingValue/isCounterName(_:)``):
/// - JSON (any body that parses as JSON, whatever its `Content-Type`, unless that names a form):
///   the same shape, members by name and arrays element by element;
/// - `application/x-www-form-urlencoded`: the same field names in the same order;
/// - `multipart/form-data`: the same parts with the same headers in the same order, each
///   boundary its own (a part's content compared as a value).
///
/// A string value that holds JSON on both sides (GraphQL `variables` sent as a string) is
/// compared as JSON. A body that does not parse as its form is never near anything.
public enum StandInBody {
    /// The largest body compared (and kept beside a stored answer for comparing): 64 KiB.
    public static let maximumBodySize = 64 * 1024

    /// A request body and its `Content-Type`.
    public struct Body: Sendable, Hashable {
        /// The bytes.
        public var bytes: [UInt8]
        /// The request's `Content-Type`, nil when it had none.
        public var contentType: String?

        /// A body of `bytes` sent as `contentType`.
        public init(_ bytes: [UInt8], contentType: String?) {
            self.bytes = bytes
            self.contentType = contentType
        }
    }

    /// How near a stored body is: the fewer fields differ the nearer, then the closer its
    /// clocks' readings.
    public struct Nearness: Sendable, Hashable, Comparable {
        /// Where the bodies differ, in document order: a JSON path (`filters.range[0]`), a form
        /// field's or a multipart part's name.
        public var differing: [String]
        /// The sum of the differences between the clocks' readings, in seconds.
        public var seconds: Double

        /// A nearness.
        public init(differing: [String], seconds: Double) {
            self.differing = differing
            self.seconds = seconds
        }

        public static func < (lhs: Nearness, rhs: Nearness) -> Bool {
            (lhs.differing.count, lhs.seconds) < (rhs.differing.count, rhs.seconds)
        }
    }

    /// Why a stored body may not stand in.
    public enum Refusal: Sendable, Hashable {
        /// The request's body does not parse as its form (or is too large to compare).
        case requestUnparsable
        /// The stored body does not parse as its form (or is too large to compare).
        case storedUnparsable
        /// One is JSON, the other a form, say.
        case differentForm
        /// They differ at this place in something that is not a changing value.
        case differs(at: String)
    }

    /// The verdict on one stored body.
    public enum Verdict: Sendable, Hashable {
        /// It may stand in, this near.
        case near(Nearness)
        /// It may not.
        case refused(Refusal)
    }

    /// Whether `stored`'s answer may stand in for `request`'s, and how near it is.
    public static func compare(_ request: Body, stored: Body) -> Verdict {
        guard let requested = ParsedBody(request) else { return .refused(.requestUnparsable) }
        guard let kept = ParsedBody(stored) else { return .refused(.storedUnparsable) }
        var comparison = Comparison()
        switch (requested, kept) {
        case (.json(let a), .json(let b)):
            comparison.json(a, b, path: "")
        case (.form(let a), .form(let b)):
            comparison.fields(a, b)
        case (.multipart(let a), .multipart(let b)):
            comparison.parts(a, b)
        default:
            return .refused(.differentForm)
        }
        if let refusal = comparison.refusal { return .refused(refusal) }
        return .near(Nearness(differing: comparison.differing, seconds: comparison.seconds))
    }
}

/// A body parsed into the form it is compared in.
private enum ParsedBody {
    case json(JSONValue)
    case form([(name: String, value: String)])
    case multipart([MultipartPart])

    init?(_ body: StandInBody.Body) {
        guard body.bytes.count <= StandInBody.maximumBodySize else { return nil }
        let mediaType = body.contentType.map(JSONMediaType.mediaType(of:))
        switch mediaType {
        case "application/x-www-form-urlencoded":
            self = .form(Self.fields(body.bytes))
        case "multipart/form-data":
            guard let parts = MultipartPart.parts(of: body.bytes, contentType: body.contentType ?? "") else { return nil }
            self = .multipart(parts)
        default:
            guard let value = try? JSONParser.parse(body.bytes) else { return nil }
            self = .json(value)
        }
    }

    private static func fields(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            let plus = pair.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
            let name = plus.prefix { $0 != UInt8(ascii: "=") }
            let value = name.count < plus.count ? Array(plus[(name.count + 1)...]) : []
            return (PercentEncoding.decoded(Array(name)), PercentEncoding.decoded(value))
        }
    }
}

/// One part of a `multipart/form-data` body: its header fields (names lower-cased, sorted) and content.
private struct MultipartPart {
    var fields: [String]
    var name: String
    var content: [UInt8]

    /// The parts, delimited by the boundary the `Content-Type` names (or, when it names none, the
    /// one the body starts with); nil when the body is not well formed.
    static func parts(of body: [UInt8], contentType: String) -> [MultipartPart]? {
        guard let boundary = Self.boundary(contentType) ?? Self.sniffedBoundary(body), !boundary.isEmpty else { return nil }
        let delimiter = Array("--".utf8) + Array(boundary.utf8)
        let separator = Array("\r\n".utf8) + delimiter
        guard body.starts(with: delimiter) else { return nil }
        var parts: [MultipartPart] = []
        var position = delimiter.count
        while true {
            let rest = body[position...]
            if rest.starts(with: Array("--".utf8)) { return parts }
            guard rest.starts(with: Array("\r\n".utf8)), let end = Self.find(separator, in: body, from: position + 2) else { return nil }
            guard let part = Self.part(body[(position + 2)..<end]) else { return nil }
            parts.append(part)
            position = end + separator.count
        }
    }

    private static func part(_ bytes: ArraySlice<UInt8>) -> MultipartPart? {
        let blank = Array("\r\n\r\n".utf8)
        let headEnd: Int
        let contentStart: Int
        if bytes.starts(with: Array("\r\n".utf8)) {
            headEnd = bytes.startIndex
            contentStart = bytes.startIndex + 2
        } else {
            guard let end = Self.find(blank, in: Array(bytes), from: 0) else { return nil }
            headEnd = bytes.startIndex + end
            contentStart = headEnd + blank.count
        }
        var fields: [String] = []
        var name = ""
        for line in String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let fieldName = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            fields.append("\(fieldName): \(value)")
            if fieldName == "content-disposition" { name = Self.parameter("name", in: Substring(value)) ?? "" }
        }
        return MultipartPart(fields: fields.sorted(), name: name, content: Array(bytes[contentStart...]))
    }

    private static func boundary(_ contentType: String) -> String? {
        Self.parameter("boundary", in: Substring(contentType))
    }

    /// A `;`-separated parameter's value, quotes removed.
    private static func parameter(_ wanted: String, in value: Substring) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == wanted else { continue }
            var text = pair[1].trimmingWhitespace()
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return text
        }
        return nil
    }

    private static func sniffedBoundary(_ body: [UInt8]) -> String? {
        guard body.starts(with: Array("--".utf8)), let end = Self.find(Array("\r\n".utf8), in: body, from: 2) else { return nil }
        return String(decoding: body[2..<end], as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// The walk over two parsed bodies: where they differ, and the first difference that refuses.
private struct Comparison {
    var differing: [String] = []
    var seconds: Double = 0
    var refusal: StandInBody.Refusal?

    mutating func json(_ a: JSONValue, _ b: JSONValue, path: String, name: Substring? = nil) {
        guard self.refusal == nil else { return }
        switch (a.kind, b.kind) {
        case (.object(let aMembers), .object(let bMembers)):
            let aNames = aMembers.map(\.name)
            guard Set(aNames) == Set(bMembers.map(\.name)), aNames.count == bMembers.count else {
                return self.refuse(path.isEmpty ? "(members)" : path)
            }
            var seen = Set<String>()
            for member in aMembers where seen.insert(member.name).inserted {
                guard let other = b[member: member.name], let mine = a[member: member.name] else { continue }
                self.json(mine, other, path: path.isEmpty ? member.name : "\(path).\(member.name)", name: Substring(member.name))
            }
        case (.array(let aElements), .array(let bElements)):
            guard aElements.count == bElements.count else { return self.refuse(path.isEmpty ? "(elements)" : path) }
            for (index, (mine, other)) in zip(aElements, bElements).enumerated() {
                self.json(mine, other, path: "\(path)[\(index)]", name: name)
            }
        case (.string(let mine), .string(let other)):
            self.value(mine, other, path: path, name: name)
        case (.number(let mine), .number(let other)):
            self.value(mine.text, other.text, path: path, name: name, mayHoldJSON: false)
        default:
            if a.kind != b.kind { self.refuse(path.isEmpty ? "(body)" : path) }
        }
    }

    mutating func fields(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) {
        guard a.map(\.name) == b.map(\.name) else { return self.refuse("(fields)") }
        for (mine, other) in zip(a, b) {
            self.value(mine.value, other.value, path: mine.name, name: Substring(mine.name))
        }
    }

    mutating func parts(_ a: [MultipartPart], _ b: [MultipartPart]) {
        guard a.count == b.count else { return self.refuse("(parts)") }
        for (mine, other) in zip(a, b) {
            guard mine.fields == other.fields else { return self.refuse(mine.name.isEmpty ? "(part)" : mine.name) }
            guard mine.content != other.content else { continue }
            self.value(
                String(decoding: mine.content, as: UTF8.self), String(decoding: other.content, as: UTF8.self), path: mine.name,
                name: Substring(mine.name))
        }
    }

    /// Two scalar values at `path`: equal, readings of one clock, a counter's, or (both holding
    /// JSON) compared as JSON; anything else refuses.
    private mutating func value(_ a: String, _ b: String, path: String, name: Substring?, mayHoldJSON: Bool = true) {
        guard self.refusal == nil, a != b else { return }
        if let mine = ChangingValue(Substring(a)), let other = ChangingValue(Substring(b)), mine.isSameKind(as: other) {
            self.differing.append(path)
            if let x = mine.seconds, let y = other.seconds { self.seconds += abs(x - y) }
            return
        }
        if let name, ChangingValue.isCounterName(name) {
            self.differing.append(path)
            return
        }
        if mayHoldJSON, let first = a.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let mine = try? JSONParser.parse(Array(a.utf8)), let other = try? JSONParser.parse(Array(b.utf8))
        {
            return self.json(mine, other, path: path)
        }
        self.refuse(path.isEmpty ? "(body)" : path)
    }

    private mutating func refuse(_ path: String) {
        if self.refusal == nil { self.refusal = .differs(at: path) }
    }
}

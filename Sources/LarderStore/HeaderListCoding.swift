import Foundation

/// The index's JSON form of a header list: `[["Content-Type","text/html"],...]`.
enum HeaderListCoding {
    static func encode(_ headers: [HeaderField]) -> String {
        let pairs = headers.map { [$0.name, $0.value] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        // Encoding an array of strings cannot fail; an empty list is the safe fallback regardless.
        guard let data = try? encoder.encode(pairs) else {
            return "[]"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The header list, or nil when the text is not a JSON array of `[name, value]` pairs.
    static func decode(_ text: String) -> [HeaderField]? {
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)) else {
            return nil
        }
        var headers: [HeaderField] = []
        headers.reserveCapacity(pairs.count)
        for pair in pairs {
            guard pair.count == 2 else {
                return nil
            }
            headers.append(HeaderField(name: pair[0], value: pair[1]))
        }
        return headers
    }
}

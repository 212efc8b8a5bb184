/// A message's header fields, read and changed by name, so the rules in this module take NIO's
/// `HTTPHeaders` (the proxy conforms it) as readily as a stored `[HeaderField]` list.
public protocol HeaderFields {
    /// The values of every field named `name` (ASCII case ignored), in order.
    subscript(name: String) -> [String] { get }
    /// Removes every field named `name`.
    mutating func remove(name: String)
    /// Adds a field at the end.
    mutating func add(name: String, value: String)
    /// Replaces every field named `name` with one field, where the first was (or at the end).
    mutating func replaceOrAdd(name: String, value: String)
}

extension HeaderFields {
    /// Whether a field named `name` is present.
    public func contains(name: String) -> Bool {
        !self[name].isEmpty
    }

    /// The first value of the field named `name`.
    public func first(name: String) -> String? {
        self[name].first
    }

    /// The body length `Content-Length` declares, when it declares one valid length (repeats of
    /// the same value allowed, RFC 9110 section 8.6); nil otherwise.
    public var contentLength: Int64? {
        let values = Set(self["content-length"].flatMap { $0.split(separator: ",") }.map { $0.trimmingWhitespace() })
        guard values.count == 1, let value = values.first, let length = Int64(value), length >= 0 else { return nil }
        return length
    }
}

extension Array: HeaderFields where Element == HeaderField {
    public subscript(name: String) -> [String] {
        var values: [String] = []
        for field in self where field.hasName(name) {
            values.append(field.value)
        }
        return values
    }

    public mutating func remove(name: String) {
        self.removeAll { $0.hasName(name) }
    }

    public mutating func add(name: String, value: String) {
        self.append(HeaderField(name: name, value: value))
    }

    public mutating func replaceOrAdd(name: String, value: String) {
        guard let first = self.firstIndex(where: { $0.hasName(name) }) else {
            self.append(HeaderField(name: name, value: value))
            return
        }
        self[first] = HeaderField(name: name, value: value)
        var index = self.index(after: first)
        while index < self.endIndex {
            if self[index].hasName(name) {
                self.remove(at: index)
            } else {
                index = self.index(after: index)
            }
        }
    }
}

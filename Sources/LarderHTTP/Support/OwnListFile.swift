/// The shape of Larder's own list files in the cache directory (`answer-offline.json`,
/// `keep-no-store.json`: docs/FORMATS.md): one object with one member, an array. The one place
/// that reads and writes that shape; each file's elements are its own type's to read.
public enum OwnListFile {
    /// Why a file is not one Larder wrote: its path, where, and what was expected.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String

        /// A problem described so.
        public init(description: String) {
            self.description = description
        }
    }

    /// The elements of the array that is the one member `name` of `bytes`; `file` names the file
    /// and `holding` what the array holds (`of origins`) in errors.
    public static func elements(of bytes: [UInt8], member name: String, holding: String = "", file: String) throws(Problem) -> [JSONValue] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw Problem(description: "\(file): \(error)")
        }
        guard case .object(let members) = value.kind, members.allSatisfy({ $0.name == name }),
            case .array(let elements)? = value[member: name]?.kind
        else {
            throw Problem(
                description: "\(file): expected an object with one member, \"\(name)\", an array\(holding.isEmpty ? "" : " " + holding)")
        }
        return elements
    }

    /// A file's bytes: `elements` as the one member `name`, canonical JSON and a newline.
    public static func bytes(member name: String, elements: [JSONValue]) -> [UInt8] {
        CanonicalJSON.bytes(of: JSONValue(.object([JSONMember(name: name, line: 1, value: JSONValue(.array(elements), line: 1))]), line: 1))
            + Array("\n".utf8)
    }
}

/// What one of Larder's own list files holds (``OwnListFile``): read from its bytes, written back.
public protocol OwnListFileContents: Sendable {
    /// Nothing chosen yet (no file).
    init()
    /// Reads the file's bytes; `file` names it in errors.
    init(parsing bytes: [UInt8], file: String) throws(OwnListFile.Problem)
    /// The file's bytes.
    var bytes: [UInt8] { get }
}

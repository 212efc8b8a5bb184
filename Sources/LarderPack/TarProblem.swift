/// What is wrong with a tar stream, before the pack layer names the file (``PackError``).
enum TarProblem: Error, Equatable {
    /// The stream ended inside a header or an entry's data, or before the end-of-archive blocks.
    case truncated
    /// A header block is not a valid ustar header.
    case badHeader(String)
    /// An entry of a type packs never hold (a link, a directory, a device).
    case unsupportedType(name: String, type: Character)
    /// A name that is absolute or climbs out of the archive (`..`), or is empty.
    case unsafeName(String)
}

/// One POSIX ustar header block (512 bytes): the fields a pack uses, and how they are written and
/// read (POSIX.1-2001, pax `ustar` format).
///
/// Only regular files (`0`) and pax extended headers (`x`, which carry a size too large for the
/// 11 octal digits of the `size` field) are written or accepted.
struct TarHeader: Equatable {
    /// The block size: headers and data are padded to it.
    static let blockSize = 512
    /// The largest size the octal `size` field holds (8 GiB − 1); larger files get a pax `size`.
    static let largestOctalSize: Int64 = 0o77777777777

    enum Kind: UInt8 {
        case file = 0x30  // "0"
        case paxExtended = 0x78  // "x"
    }

    var name: String
    var size: Int64
    var kind: Kind
    /// Seconds since 1970, as the `mtime` field.
    var modified: Int64 = 0

    /// The 512 bytes of the header. `name` must fit the 100-byte name field (a pack's names do).
    func encoded() -> [UInt8] {
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        Self.put(Array(self.name.utf8.prefix(100)), at: 0, in: &block)
        Self.putOctal(self.kind == .file ? 0o644 : 0, width: 8, at: 100, in: &block)
        Self.putOctal(0, width: 8, at: 108, in: &block)
        Self.putOctal(0, width: 8, at: 116, in: &block)
        Self.putOctal(min(self.size, Self.largestOctalSize), width: 12, at: 124, in: &block)
        Self.putOctal(max(0, self.modified), width: 12, at: 136, in: &block)
        block[156] = self.kind.rawValue
        Self.put(Array("ustar\u{0}00".utf8), at: 257, in: &block)
        Self.put(Array("larder".utf8), at: 265, in: &block)
        Self.put(Array("larder".utf8), at: 297, in: &block)
        // The checksum is computed with its own field as eight spaces.
        Self.put([UInt8](repeating: 0x20, count: 8), at: 148, in: &block)
        let sum = block.reduce(0) { $0 + Int64($1) }
        Self.putOctal(sum, width: 7, at: 148, in: &block)
        block[155] = 0x20
        return block
    }

    /// Reads a header block; throws ``TarProblem`` naming what is wrong with it.
    static func decode(_ block: ArraySlice<UInt8>) throws(TarProblem) -> TarHeader {
        let bytes = Array(block)
        guard bytes.count == Self.blockSize else { throw .truncated }
        var unsignedSum: Int64 = 0
        for (index, byte) in bytes.enumerated() {
            unsignedSum += (148..<156).contains(index) ? 0x20 : Int64(byte)
        }
        guard let stored = Self.octal(bytes[148..<156]), stored == unsignedSum else {
            throw .badHeader("its checksum does not match (not a tar archive, or a damaged one)")
        }
        guard bytes[257..<262].elementsEqual("ustar".utf8) else {
            throw .badHeader("it is not a POSIX ustar header")
        }
        let kind: Kind
        switch bytes[156] {
        case 0x30, 0: kind = .file
        case Kind.paxExtended.rawValue: kind = .paxExtended
        case let other:
            throw .unsupportedType(name: Self.string(bytes[0..<100]), type: Character(Unicode.Scalar(other)))
        }
        var name = Self.string(bytes[0..<100])
        let prefix = Self.string(bytes[345..<500])
        if !prefix.isEmpty {
            name = prefix + "/" + name
        }
        guard let size = Self.octal(bytes[124..<136]) else {
            throw .badHeader("the size of \(name) is not an octal number")
        }
        return TarHeader(name: name, size: size, kind: kind, modified: Self.octal(bytes[136..<148]) ?? 0)
    }

    /// A pax extended header's records (`LENGTH key=value\n`), with the keys a pack uses.
    static func paxRecords(size: Int64) -> [UInt8] {
        let body = " size=\(size)\n"
        // The length counts its own digits: try the shortest that fits.
        var length = body.utf8.count + 1
        while String(length).utf8.count + body.utf8.count != length {
            length += 1
        }
        return Array("\(length)\(body)".utf8)
    }

    /// The `size` a pax extended header gives, or nil when it gives none; throws when its records
    /// are malformed.
    static func paxSize(_ records: [UInt8]) throws(TarProblem) -> Int64? {
        var size: Int64?
        var rest = records[...]
        while !rest.isEmpty {
            guard let space = rest.firstIndex(of: 0x20), let length = Int(String(decoding: rest[rest.startIndex..<space], as: UTF8.self)),
                length > space - rest.startIndex, length <= rest.count, rest[rest.startIndex + length - 1] == 0x0A
            else {
                throw .badHeader("a pax extended header is malformed")
            }
            let record = String(decoding: rest[(space + 1)..<(rest.startIndex + length - 1)], as: UTF8.self)
            if record.hasPrefix("size=") {
                guard let value = Int64(record.dropFirst(5)), value >= 0 else {
                    throw .badHeader("a pax size is not a number")
                }
                size = value
            } else if record.hasPrefix("path=") || record.hasPrefix("linkpath=") {
                // A name given here would escape the ustar name checks: packs never use one.
                throw .badHeader("a pax header renames an entry, which packs never do")
            }
            rest = rest[(rest.startIndex + length)...]
        }
        return size
    }

    private static func put(_ bytes: [UInt8], at offset: Int, in block: inout [UInt8]) {
        block.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
    }

    /// Writes `value` as `width - 1` zero-padded octal digits and a NUL.
    private static func putOctal(_ value: Int64, width: Int, at offset: Int, in block: inout [UInt8]) {
        var digits = String(value, radix: 8)
        digits = String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
        self.put(Array(digits.utf8) + [0], at: offset, in: &block)
    }

    /// An octal field: digits, perhaps led by spaces and ended by a NUL or space.
    private static func octal(_ field: ArraySlice<UInt8>) -> Int64? {
        let trimmed = field.drop { $0 == 0x20 }.prefix { $0 != 0 && $0 != 0x20 }
        guard !trimmed.isEmpty, trimmed.count <= 21, trimmed.allSatisfy({ (0x30...0x37).contains($0) }) else {
            return nil
        }
        return Int64(String(decoding: trimmed, as: UTF8.self), radix: 8)
    }

    private static func string(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
}

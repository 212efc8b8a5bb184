import Crypto

/// The deterministic bytes of ``TestBody/generated(length:)``.
///
/// Byte `i` depends only on `i`, so a test can check any range of a large body without holding it.
/// Byte `i` is `pattern[(i + i / 65536) % 65536]` for a fixed pseudo-random 64 KiB `pattern`: each
/// 64 KiB block is the pattern rotated by its block number, so no two blocks in the first 4 GiB are
/// alike and a misplaced range is caught, while a block is built with two memory copies.
public enum GeneratedBody {
    /// The size of the repeating pattern and of the blocks it is rotated in.
    static let blockSize: Int64 = 1 << 16

    /// The 64 KiB pattern: a multiplicative hash of the index, so it has no short period.
    static let pattern: [UInt8] = (0..<Int(blockSize)).map { index in
        let mixed = UInt32(truncatingIfNeeded: index) &* 2_654_435_761
        return UInt8(truncatingIfNeeded: mixed >> 13)
    }

    /// The byte at `offset` of every generated body.
    public static func byte(at offset: Int64) -> UInt8 {
        let block = offset >> 16
        return Self.pattern[Int((offset &+ block) & (Self.blockSize - 1))]
    }

    /// The bytes at the offsets in `range`.
    public static func bytes(_ range: Range<Int64>) -> [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(range.count)
        Self.forEachPiece(of: range) { result.append(contentsOf: $0) }
        return result
    }

    /// The lower-case hex SHA-256 of the generated body of `length` bytes, computed in pieces.
    public static func sha256Hex(length: Int64) -> String {
        var hasher = SHA256()
        Self.forEachPiece(of: 0..<length) { hasher.update(data: $0) }
        return hasher.finalize().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Calls `body` with consecutive slices of the pattern that together are the bytes of `range`.
    static func forEachPiece(of range: Range<Int64>, _ body: (ArraySlice<UInt8>) -> Void) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let block = offset >> 16
            let blockEnd = min((block + 1) << 16, range.upperBound)
            // Within one block the pattern index runs from `start` upward, wrapping once at most.
            let start = Int((offset &+ block) & (Self.blockSize - 1))
            let count = Int(blockEnd - offset)
            let firstCount = min(count, Int(Self.blockSize) - start)
            body(Self.pattern[start..<(start + firstCount)])
            if firstCount < count {
                body(Self.pattern[0..<(count - firstCount)])
            }
            offset = blockEnd
        }
    }
}

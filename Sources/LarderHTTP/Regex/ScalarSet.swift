/// A set of Unicode scalars as sorted, disjoint, non-adjacent ranges of their values: a regex
/// character class, `.`, `\d` and the like (``RouteRegex``).
struct ScalarSet: Sendable, Hashable {
    let ranges: [ClosedRange<UInt32>]
    /// Which of the scalars 0-63 and 64-127 are in the set, one bit each: cache keys are ASCII, so
    /// a match asks these bits and rarely searches ``ranges``.
    private let asciiLow: UInt64
    private let asciiHigh: UInt64

    /// The set of the scalar values in `ranges` (in any order, overlapping or not).
    init(_ ranges: [ClosedRange<UInt32>]) {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.init(disjoint: merged)
    }

    /// The one scalar `scalar`.
    init(_ scalar: Unicode.Scalar) {
        self.init(disjoint: [scalar.value...scalar.value])
    }

    private init(disjoint ranges: [ClosedRange<UInt32>]) {
        self.ranges = ranges
        var bits: (low: UInt64, high: UInt64) = (0, 0)
        for range in ranges where range.lowerBound < 128 {
            for value in range.lowerBound...min(range.upperBound, 127) {
                if value < 64 {
                    bits.low |= 1 << UInt64(value)
                } else {
                    bits.high |= 1 << UInt64(value - 64)
                }
            }
        }
        (self.asciiLow, self.asciiHigh) = bits
    }

    static let digits = ScalarSet([0x30...0x39])
    static let wordCharacters = ScalarSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    static let whitespace = ScalarSet([0x09...0x0D, 0x20...0x20])
    /// What `.` matches: every scalar but a line feed.
    static let anyButNewline = ScalarSet([0x0A...0x0A]).inverted

    /// Every scalar value (0...0x10FFFF) not in this set.
    var inverted: ScalarSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in self.ranges {
            if range.lowerBound > next {
                result.append(next...(range.lowerBound - 1))
            }
            next = range.upperBound + 1
        }
        if next <= 0x10FFFF {
            result.append(next...0x10FFFF)
        }
        return ScalarSet(result)
    }

    /// This set and `other` together.
    func union(_ other: ScalarSet) -> ScalarSet {
        ScalarSet(self.ranges + other.ranges)
    }

    /// This set with the other case of each ASCII letter in it (what `(?i)` matches).
    var addingASCIICases: ScalarSet {
        var added = self.ranges
        for range in self.ranges {
            for (letters, shift) in [(UInt32(0x41)...0x5A, Int64(32)), (UInt32(0x61)...0x7A, Int64(-32))] where range.overlaps(letters) {
                let lower = max(range.lowerBound, letters.lowerBound)
                let upper = min(range.upperBound, letters.upperBound)
                added.append(UInt32(Int64(lower) + shift)...UInt32(Int64(upper) + shift))
            }
        }
        return ScalarSet(added)
    }

    /// Whether `scalar` is in the set (a bit for ASCII, else a binary search).
    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 64 {
            return self.asciiLow & (1 << UInt64(value)) != 0
        }
        if value < 128 {
            return self.asciiHigh & (1 << UInt64(value - 64)) != 0
        }
        var low = 0
        var high = self.ranges.count
        while low < high {
            let middle = (low + high) / 2
            let range = self.ranges[middle]
            if value < range.lowerBound {
                high = middle
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}

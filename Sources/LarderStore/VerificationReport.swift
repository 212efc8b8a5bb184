/// What ``Store/verifyEntries(repair:)`` found.
public struct VerificationReport: Sendable, Hashable {
    /// One problem found.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The entry's URL, or the file's path for files no entry names.
        public var subject: String
        /// What is wrong.
        public var kind: Kind
        /// Whether `--repair` removed it.
        public var repaired: Bool

        /// Creates a problem.
        public init(subject: String, kind: Kind, repaired: Bool) {
            self.subject = subject
            self.kind = kind
            self.repaired = repaired
        }

        /// `subject: what is wrong[ (removed)]`.
        public var description: String {
            "\(self.subject): \(self.kind)\(self.repaired ? " (removed)" : "")"
        }
    }

    /// Kinds of problems.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The entry's body file does not exist.
        case missingBody(path: String)
        /// The body file's size differs from the index.
        case wrongSize(path: String, indexed: Int64, actual: Int64)
        /// The body file's SHA-256 is not its name.
        case wrongHash(path: String, actual: String)
        /// The index row cannot be read (bad hash or headers).
        case malformedRow
        /// A body file that no entry references (harmless: left by an interrupted run).
        case orphanBody
        /// A file in `tmp/` that no running writer holds (harmless: left by an interrupted run).
        case leftoverTemporaryFile

        /// Whether this is a leftover of an interrupted run, which takes space but is never served,
        /// rather than damage to an entry.
        public var isHarmless: Bool {
            switch self {
            case .orphanBody, .leftoverTemporaryFile: true
            case .missingBody, .wrongSize, .wrongHash, .malformedRow: false
            }
        }

        /// A short sentence.
        public var description: String {
            switch self {
            case .missingBody(let path): "body file \(path) is missing"
            case .wrongSize(let path, let indexed, let actual): "body file \(path) has \(actual) bytes, the index says \(indexed)"
            case .wrongHash(let path, let actual): "body file \(path) is corrupted (its SHA-256 is \(actual))"
            case .malformedRow: "the index row is malformed"
            case .orphanBody: "body file that no entry references"
            case .leftoverTemporaryFile: "temporary file left by an interrupted write"
            }
        }
    }

    /// How many entries were checked.
    public var checkedEntries: Int = 0
    /// The bytes of the body files that were hashed.
    public var checkedBytes: Int64 = 0
    /// Every problem found, entries first, then leftovers.
    public var problems: [Problem] = []

    /// Creates an empty report.
    public init() {}

    /// Damaged entries (left as found, or removed by `--repair`).
    public var damage: [Problem] {
        self.problems.filter { !$0.kind.isHarmless }
    }

    /// Leftovers of interrupted runs (left as found, or removed by `--repair`).
    public var leftovers: [Problem] {
        self.problems.filter(\.kind.isHarmless)
    }

    /// True when no entry is damaged, or every damaged one was removed; leftovers do not count.
    public var isClean: Bool {
        self.damage.allSatisfy(\.repaired)
    }
}

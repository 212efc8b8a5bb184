/// A route regular expression compiled for ``RouteRegexProgram/run(_:captures:)``: a Pike VM
/// (a Thompson NFA that keeps capture positions), which follows every way the expression can
/// match at once, so its work is linear in the subject's length times the program's size, and no
/// expression, however written, can make it backtrack.
struct RouteRegexProgram: Sendable {
    /// The most instructions a program may have (counted repetitions repeat their body). A match
    /// takes at most 3 steps per instruction per scalar of the URL (``run(_:captures:)``), and a
    /// route is matched against every request, so this bounds what one expression costs each
    /// request: 769 steps a scalar, under 3 million for an 8 KiB URL (tens of milliseconds).
    static let maximumInstructions = 256

    /// One step of the machine. Payloads are plain integers, so running one copies no reference.
    enum Instruction: Sendable, Hashable {
        /// Consume one scalar from the set ``RouteRegexProgram/sets`` holds at this index.
        case scalars(Int)
        /// Go on at both targets, the first preferred.
        case split(Int, Int)
        case jump(Int)
        /// Record the position in capture slot `n` (group `n / 2`, start or end).
        case save(Int)
        case assert(RouteRegexAssertion)
        case match
    }

    let instructions: [Instruction]
    /// The scalar sets of the ``Instruction/scalars(_:)`` instructions.
    let sets: [ScalarSet]
    /// Capture groups, the whole match not counted.
    let captureCount: Int

    /// Compiles `node`, with `captureCount` groups; throws when the program is over
    /// ``maximumInstructions``.
    init(_ node: RouteRegexNode, captureCount: Int) throws(RouteRegexError) {
        var compiler = Compiler()
        compiler.emit(.save(0))
        try compiler.compile(node)
        compiler.emit(.save(1))
        compiler.emit(.match)
        guard compiler.instructions.count <= Self.maximumInstructions else {
            throw RouteRegexError("the expression is too large: over \(Self.maximumInstructions) steps once its repetitions are expanded")
        }
        self.instructions = compiler.instructions
        self.sets = compiler.sets
        self.captureCount = captureCount
    }

    private struct Compiler {
        var instructions: [Instruction] = []
        var sets: [ScalarSet] = []

        mutating func emit(_ instruction: Instruction) {
            self.instructions.append(instruction)
        }

        mutating func compile(_ node: RouteRegexNode) throws(RouteRegexError) {
            // Counted repetitions multiply: stop as soon as the limit is passed.
            guard self.instructions.count <= RouteRegexProgram.maximumInstructions else {
                throw RouteRegexError(
                    "the expression is too large: over \(RouteRegexProgram.maximumInstructions) steps once its repetitions are expanded")
            }
            switch node {
            case .empty:
                break
            case .scalars(let set):
                self.emit(.scalars(self.sets.count))
                self.sets.append(set)
            case .concatenation(let parts):
                for part in parts {
                    try self.compile(part)
                }
            case .alternation(let alternatives):
                // split L1, next; L1: a; jump end; next: split L2, ...; last alternative falls through.
                var jumps: [Int] = []
                for (index, alternative) in alternatives.enumerated() {
                    if index < alternatives.count - 1 {
                        let split = self.instructions.count
                        self.emit(.split(split + 1, -1))
                        try self.compile(alternative)
                        jumps.append(self.instructions.count)
                        self.emit(.jump(-1))
                        self.instructions[split] = .split(split + 1, self.instructions.count)
                    } else {
                        try self.compile(alternative)
                    }
                }
                for jump in jumps {
                    self.instructions[jump] = .jump(self.instructions.count)
                }
            case .capture(let body, let index):
                self.emit(.save(2 * index))
                try self.compile(body)
                self.emit(.save(2 * index + 1))
            case .repetition(let body, let minimum, let maximum, let lazy):
                for _ in 0..<minimum {
                    try self.compile(body)
                }
                if let maximum {
                    // Each optional copy may be skipped to the end: x{1,3} is x(?:x(?:x)?)?.
                    var splits: [Int] = []
                    for _ in minimum..<maximum {
                        splits.append(self.instructions.count)
                        self.emit(.split(-1, -1))
                        try self.compile(body)
                    }
                    let end = self.instructions.count
                    for split in splits {
                        self.instructions[split] = lazy ? .split(end, split + 1) : .split(split + 1, end)
                    }
                } else {
                    let loop = self.instructions.count
                    self.emit(.split(-1, -1))
                    try self.compile(body)
                    self.emit(.jump(loop))
                    let end = self.instructions.count
                    self.instructions[loop] = lazy ? .split(end, loop + 1) : .split(loop + 1, end)
                }
            case .assertion(let assertion):
                self.emit(.assert(assertion))
            }
        }
    }
}

extension RouteRegexProgram {
    /// The outcome of a run: the capture slots of the match (scalar offsets, -1 for a group that
    /// took no part), and the steps taken, for tests of the bound.
    struct Run {
        var slots: [Int]?
        var steps: Int
    }

    /// Searches `subject` for the leftmost match, preferring what a backtracking engine would
    /// (greedy or lazy quantifiers, earlier alternatives first), so the match and its groups are
    /// those of Swift's `Regex`. With `captures` false, stops at the first match found and
    /// records no positions. Takes at most about 3 × `instructions.count` steps per scalar.
    func run(_ subject: [Unicode.Scalar], captures: Bool) -> Run {
        var machine = Machine(program: self, subject: subject, captures: captures)
        return machine.run()
    }

    private struct Machine {
        let instructions: [Instruction]
        let subject: [Unicode.Scalar]
        let captures: Bool
        let slotCount: Int
        /// The position + 1 at which an instruction was last added to a thread list.
        var marks: [Int]
        var steps = 0
        var stack: [(pc: Int, slots: [Int])] = []

        init(program: RouteRegexProgram, subject: [Unicode.Scalar], captures: Bool) {
            self.instructions = program.instructions
            self.subject = subject
            self.captures = captures
            self.slotCount = captures ? 2 * (program.captureCount + 1) : 0
            self.marks = Array(repeating: 0, count: program.instructions.count)
        }

        mutating func run() -> Run {
            var current: [(pc: Int, slots: [Int])] = []
            var next: [(pc: Int, slots: [Int])] = []
            var matched: [Int]?
            let start = Array(repeating: -1, count: self.slotCount)
            for position in 0...self.subject.count {
                // A new start, least preferred, until a match is found (the leftmost one wins).
                if matched == nil {
                    self.add(0, slots: start, at: position, to: &current)
                }
                if current.isEmpty, matched != nil {
                    break
                }
                threads: for thread in current {
                    self.steps += 1
                    switch self.instructions[thread.pc] {
                    case .scalars(let set):
                        if position < self.subject.count, set.contains(self.subject[position]) {
                            self.add(thread.pc + 1, slots: thread.slots, at: position + 1, to: &next)
                        }
                    case .match:
                        matched = thread.slots
                        guard self.captures else { return Run(slots: matched, steps: self.steps) }
                        // Threads after this one are less preferred: drop them.
                        break threads
                    default:
                        break
                    }
                }
                swap(&current, &next)
                next.removeAll(keepingCapacity: true)
            }
            return Run(slots: matched, steps: self.steps)
        }

        /// Adds the thread at `pc` to `list`, following jumps, splits, saves and assertions at
        /// `position` in order of preference; an instruction already in the list is not added again.
        mutating func add(_ pc: Int, slots: [Int], at position: Int, to list: inout [(pc: Int, slots: [Int])]) {
            self.stack.append((pc, slots))
            while let thread = self.stack.popLast() {
                let (pc, slots) = thread
                self.steps += 1
                guard self.marks[pc] != position + 1 else { continue }
                self.marks[pc] = position + 1
                switch self.instructions[pc] {
                case .jump(let target):
                    self.stack.append((target, slots))
                case .split(let preferred, let other):
                    self.stack.append((other, slots))
                    self.stack.append((preferred, slots))
                case .save(let slot):
                    var saved = slots
                    if self.captures {
                        saved[slot] = position
                    }
                    self.stack.append((pc + 1, saved))
                case .assert(let assertion):
                    if self.holds(assertion, at: position) {
                        self.stack.append((pc + 1, slots))
                    }
                case .scalars, .match:
                    list.append((pc, slots))
                }
            }
        }

        func holds(_ assertion: RouteRegexAssertion, at position: Int) -> Bool {
            switch assertion {
            case .start: return position == 0
            case .end: return position == self.subject.count
            case .wordBoundary, .notWordBoundary:
                let before = position > 0 && ScalarSet.wordCharacters.contains(self.subject[position - 1])
                let after = position < self.subject.count && ScalarSet.wordCharacters.contains(self.subject[position])
                return (before != after) == (assertion == .wordBoundary)
            }
        }
    }
}

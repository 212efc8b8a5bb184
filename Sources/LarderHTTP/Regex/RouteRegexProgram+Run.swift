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
    /// records no positions. Takes at most 3 × `instructions.count` + 1 steps at each position
    /// (each scalar, and the end).
    func run(_ subject: [Unicode.Scalar], captures: Bool) -> Run {
        self.instructions.withUnsafeBufferPointer { instructions in
            self.sets.withUnsafeBufferPointer { sets in
                subject.withUnsafeBufferPointer { subject in
                    var machine = Machine(
                        instructions: instructions, sets: sets, subject: subject, slotCount: captures ? 2 * (self.captureCount + 1) : 0)
                    defer { machine.deallocate() }
                    return machine.run()
                }
            }
        }
    }

    /// Work on the stack of ``Machine/add(_:at:toNext:)``: an instruction to follow, or a slot to put
    /// back once what follows a `save` was followed.
    private enum Work {
        case follow(Int)
        case restore(slot: Int, value: Int)
    }

    /// The threads at one position: each instruction at most once, in order of preference, with
    /// its capture slots in row `pc` of `slots`.
    private struct Threads {
        let pcs: UnsafeMutableBufferPointer<Int>
        var count = 0
        let slots: UnsafeMutableBufferPointer<Int>

        init(instructions: Int, slotCount: Int) {
            self.pcs = .allocate(capacity: instructions)
            self.slots = .allocate(capacity: instructions * slotCount)
        }

        func deallocate() {
            self.pcs.deallocate()
            self.slots.deallocate()
        }
    }

    /// The machine over buffers allocated once per run: a step copies no reference and grows no
    /// array, so its cost is a few instructions of the processor.
    private struct Machine {
        let instructions: UnsafeBufferPointer<Instruction>
        let sets: UnsafeBufferPointer<ScalarSet>
        let subject: UnsafeBufferPointer<Unicode.Scalar>
        let slotCount: Int
        /// The position + 1 at which an instruction was last added to a thread list.
        let marks: UnsafeMutableBufferPointer<Int>
        /// Room for what one position pushes: an instruction is followed once and pushes at
        /// most two entries (a split's targets, or a save's restore and next), and the first.
        let stack: UnsafeMutableBufferPointer<Work>
        /// The slots of the thread being followed.
        let scratch: UnsafeMutableBufferPointer<Int>
        var current: Threads
        var next: Threads
        var steps = 0

        init(
            instructions: UnsafeBufferPointer<Instruction>, sets: UnsafeBufferPointer<ScalarSet>,
            subject: UnsafeBufferPointer<Unicode.Scalar>, slotCount: Int
        ) {
            self.instructions = instructions
            self.sets = sets
            self.subject = subject
            self.slotCount = slotCount
            self.marks = .allocate(capacity: instructions.count)
            self.marks.initialize(repeating: 0)
            self.stack = .allocate(capacity: 3 * instructions.count + 1)
            self.scratch = .allocate(capacity: slotCount)
            self.current = Threads(instructions: instructions.count, slotCount: slotCount)
            self.next = Threads(instructions: instructions.count, slotCount: slotCount)
        }

        func deallocate() {
            self.marks.deallocate()
            self.stack.deallocate()
            self.scratch.deallocate()
            self.current.deallocate()
            self.next.deallocate()
        }

        mutating func run() -> Run {
            var matched: [Int]?
            for position in 0...self.subject.count {
                // A new start, least preferred, until a match is found (the leftmost one wins).
                if matched == nil {
                    self.scratch.update(repeating: -1)
                    self.add(0, at: position, toNext: false)
                }
                if self.current.count == 0, matched != nil {
                    break
                }
                threads: for index in 0..<self.current.count {
                    let pc = self.current.pcs[index]
                    self.steps += 1
                    switch self.instructions[pc] {
                    case .scalars(let set):
                        if position < self.subject.count, self.sets[set].contains(self.subject[position]) {
                            let row = pc * self.slotCount
                            for slot in 0..<self.slotCount {
                                self.scratch[slot] = self.current.slots[row + slot]
                            }
                            self.add(pc + 1, at: position + 1, toNext: true)
                        }
                    case .match:
                        let row = pc * self.slotCount
                        matched = Array(self.current.slots[row..<(row + self.slotCount)])
                        // Without captures any match will do; with them, threads after this one
                        // are less preferred: drop them.
                        guard self.slotCount > 0 else { return Run(slots: matched, steps: self.steps) }
                        break threads
                    default:
                        break
                    }
                }
                swap(&self.current, &self.next)
                self.next.count = 0
            }
            return Run(slots: matched, steps: self.steps)
        }

        /// Adds the thread at `pc`, with the slots in ``scratch``, to the current or the next
        /// list, following jumps, splits, saves and assertions at `position` in order of
        /// preference; an instruction already in the list is not added again. Leaves ``scratch``
        /// as it found it.
        mutating func add(_ pc: Int, at position: Int, toNext: Bool) {
            var depth = 0
            self.stack[depth] = .follow(pc)
            depth += 1
            while depth > 0 {
                depth -= 1
                let pc: Int
                switch self.stack[depth] {
                case .restore(let slot, let value):
                    self.scratch[slot] = value
                    continue
                case .follow(let target):
                    pc = target
                }
                self.steps += 1
                guard self.marks[pc] != position + 1 else { continue }
                self.marks[pc] = position + 1
                switch self.instructions[pc] {
                case .jump(let target):
                    self.stack[depth] = .follow(target)
                    depth += 1
                case .split(let preferred, let other):
                    self.stack[depth] = .follow(other)
                    self.stack[depth + 1] = .follow(preferred)
                    depth += 2
                case .save(let slot):
                    if self.slotCount > 0 {
                        self.stack[depth] = .restore(slot: slot, value: self.scratch[slot])
                        depth += 1
                        self.scratch[slot] = position
                    }
                    self.stack[depth] = .follow(pc + 1)
                    depth += 1
                case .assert(let assertion):
                    if self.holds(assertion, at: position) {
                        self.stack[depth] = .follow(pc + 1)
                        depth += 1
                    }
                case .scalars, .match:
                    if toNext {
                        Self.append(pc, slots: self.scratch, to: &self.next)
                    } else {
                        Self.append(pc, slots: self.scratch, to: &self.current)
                    }
                }
            }
        }

        private static func append(_ pc: Int, slots: UnsafeMutableBufferPointer<Int>, to list: inout Threads) {
            list.pcs[list.count] = pc
            list.count += 1
            let row = pc * slots.count
            for slot in 0..<slots.count {
                list.slots[row + slot] = slots[slot]
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

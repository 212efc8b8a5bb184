import Testing

@testable import LarderHTTP

/// Routes' regular expressions (docs/FORMATS.md, "Route regular expressions"): matched without
/// backtracking, with the results of Swift's `Regex` on the syntax both support, in time linear
/// in the subject, and anything else refused when the config is read.
@Suite("Route regular expressions")
struct RouteRegexTests {
    static let patterns = [
        #"^https://api\.games\.example/v1/(today|streak)"#,
        #"^https://games\.example/api/saves/([^/]+)$"#,
        #"\.(png|jpe?g|gif)$"#,
        #"(?i)\.PNG$"#,
        #"(?i:API)\.games"#,
        #"/v(\d+)/"#,
        #"^https?://[a-z0-9.-]+(:\d+)?/"#,
        #"^https://a/([^/]+)/(x|y)?(?:z)$"#,
        #"^https://a/(?<game>[^/]+)$"#,
        #"(?P<name>\w+)@(\w+)\.example"#,
        "a*",
        "a+?",
        "a*?b",
        ".*?(s)",
        ".*(s)",
        "(a|ab)(c|bcd)(d*)",
        "(a+)+$",
        "(a|b)*c",
        "x{2}",
        "x{2,}",
        "x{1,3}?",
        "x{2,3}",
        #"[\d\-_]+"#,
        #"[^\s/]+"#,
        #"\W+"#,
        #"\D\S"#,
        "^$",
        "^",
        "$",
        "q=([^&]*)",
        #"\?(.*)$"#,
        "[a-c-]+",
        #"[\]\\]"#,
        #"\x41\u0042\u{43}"#,
        "colou?r",
        "(a)|(b)",
        "((a)(b)?)+",
    ]

    static let subjects = [
        "https://api.games.example/v1/today",
        "https://API.games.example/v1/streak?x=1",
        "https://games.example/api/saves/slot-1",
        "https://games.example/api/saves/a/b",
        "https://cdn.example:8443/img/logo.PNG",
        "https://cdn.example/img/photo.jpeg",
        "https://a/game-7/xz",
        "https://a/game-7",
        "https://a/v12/items",
        "mail: ann@host.example",
        "aaaa",
        "aaab",
        "abcd",
        "ababc",
        "xxxxx",
        "x",
        "",
        "a-_9 b/c",
        "https://s.example/search?q=dog&s=2",
        "ABC",
        "a]\\b",
        "colour color",
        "ababab",
    ]

    struct Comparison: Sendable, CustomTestStringConvertible {
        var pattern: String
        var testDescription: String { self.pattern }
    }

    @Test("matches and groups are Swift Regex's on every subject", arguments: patterns.map(Comparison.init))
    func sameAsSwiftRegex(_ comparison: Comparison) throws {
        let ours = try RouteRegex(comparison.pattern)
        let swift = try Regex(comparison.pattern)
        for subject in Self.subjects {
            let expected = subject.firstMatch(of: swift).map { match in match.output.map { $0.substring.map(String.init) } }
            #expect(ours.captures(in: subject) == expected, "\(subject.debugDescription)")
            #expect(ours.matches(subject) == subject.contains(swift), "\(subject.debugDescription)")
            #expect(ours.captureCount == (expected?.count).map { $0 - 1 } ?? ours.captureCount)
        }
    }

    @Test("groups: counted whether or not they match; a group that took no part is nil")
    func groups() throws {
        #expect(try RouteRegex(#"^https://a/([^/]+)/(x|y)?(?:z)$"#).captureCount == 2)
        #expect(try RouteRegex(#"^https://a/(?<game>[^/]+)$"#).captureCount == 1)
        #expect(try RouteRegex("^https://a/$").captureCount == 0)
        #expect(try RouteRegex("(a)|(b)").captures(in: "b") == ["b", nil, "b"])
        #expect(try RouteRegex("x{").matches("ax{b"), "a brace that is no quantifier is itself")
        #expect(try RouteRegex(#"\bgo\b"#).matches("to go now"))
        #expect(try RouteRegex(#"\bgo\b"#).matches("gone") == false)
        #expect(try RouteRegex(#"\Bon\B"#).matches("gone"))
        #expect(try RouteRegex(#"\Aab\z"#).matches("ab"))
        #expect(try RouteRegex("[]a]+").captures(in: "x]a]y") == ["]a]"])
    }

    @Test("(a+)+$ on 10,000 a's and a b takes steps linear in the subject, and does not match")
    func linearSteps() throws {
        let regex = try RouteRegex("(a+)+$")
        let subject = Array((String(repeating: "a", count: 10_000) + "b").unicodeScalars)
        let bound = (subject.count + 1) * 4 * regex.program.instructions.count
        for captures in [false, true] {
            let run = regex.program.run(subject, captures: captures)
            #expect(run.slots == nil)
            #expect(
                run.steps <= bound, "\(run.steps) steps for \(subject.count) scalars and \(regex.program.instructions.count) instructions")
        }
        // Twice the subject, about twice the steps: linear, not exponential.
        let longer = Array((String(repeating: "a", count: 20_000) + "b").unicodeScalars)
        let short = regex.program.run(subject, captures: false).steps
        #expect(regex.program.run(longer, captures: false).steps < 3 * short)
    }

    @Test("the costliest expression accepted takes at most 3 steps per instruction (769) per scalar of an 8 KiB URL")
    func largestProgramBound() throws {
        // Each `.*a` keeps a thread per character once reached; 59 of them, just under the limit.
        let regex = try RouteRegex("^http://h/r/" + String(repeating: ".*a", count: 59))
        #expect(regex.program.instructions.count <= RouteRegexProgram.maximumInstructions)
        #expect(throws: RouteRegexError.self) { try RouteRegex("^http://h/r/" + String(repeating: ".*a", count: 300)) }
        let url = "http://h/r/" + String(repeating: "a", count: 58) + String(repeating: "b", count: 8_192 - 11 - 58)
        let scalars = Array(url.unicodeScalars)
        for captures in [false, true] {
            let run = regex.program.run(scalars, captures: captures)
            #expect(run.slots == nil)
            #expect(run.steps <= (scalars.count + 1) * (3 * RouteRegexProgram.maximumInstructions + 1), "\(run.steps) steps")
        }
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        var pattern: String
        var message: String
        var testDescription: String { self.pattern }
    }

    static let refusals = [
        Refusal(pattern: #"(a)\1"#, message: #"backreferences (\1) are not supported (at character 4)"#),
        Refusal(pattern: #"(?<n>a)\k<n>"#, message: #"backreferences (\k) are not supported (at character 8)"#),
        Refusal(pattern: "(?P=n)", message: "backreferences (?P=name) are not supported (at character 1)"),
        Refusal(pattern: "a(?=b)", message: "lookahead (?=…) and (?!…) is not supported (at character 2)"),
        Refusal(pattern: "(?!b)", message: "lookahead (?=…) and (?!…) is not supported (at character 1)"),
        Refusal(pattern: "(?<=a)b", message: "lookbehind (?<=…) and (?<!…) is not supported (at character 1)"),
        Refusal(pattern: "(?<!a)b", message: "lookbehind (?<=…) and (?<!…) is not supported (at character 1)"),
        Refusal(pattern: "(?>a+)b", message: "atomic groups (?>…) are not supported (at character 1)"),
        Refusal(pattern: "a*+", message: "possessive quantifiers (*+, ++, ?+, {n}+) are not supported (at character 3)"),
        Refusal(pattern: "a{2}+", message: "possessive quantifiers (*+, ++, ?+, {n}+) are not supported (at character 5)"),
        Refusal(pattern: #"\p{L}"#, message: #"Unicode properties (\p{…}) are not supported (at character 1)"#),
        Refusal(pattern: "(?s).", message: "inline options other than (?i) are not supported (at character 1)"),
        Refusal(pattern: "[[:alpha:]]", message: "POSIX classes ([:alpha:]) are not supported (at character 2)"),
        Refusal(pattern: "[a&&b]", message: "class set operations (&&, --, ~~) are not supported (at character 3)"),
        Refusal(pattern: "(abc", message: "unbalanced parenthesis: ( is not closed (at character 1)"),
        Refusal(pattern: "abc)", message: "unbalanced parenthesis: ) closes no group (at character 4)"),
        Refusal(pattern: "[abc", message: "unbalanced bracket: [ is not closed (at character 1)"),
        Refusal(pattern: "*a", message: "* has nothing before it to repeat (at character 1)"),
        Refusal(pattern: "{2}a", message: "{ has nothing before it to repeat (at character 1)"),
        Refusal(pattern: "a**", message: "a quantifier follows another quantifier; group the first one (at character 3)"),
        Refusal(pattern: "[z-a]", message: "the range z-a is out of order (at character 2)"),
        Refusal(pattern: #"\y"#, message: #"the escape \y is not supported (at character 1)"#),
        Refusal(pattern: "a{1001}", message: "a repetition count over 1000 (at character 2)"),
        Refusal(pattern: "(a{999}){3}", message: "the expression is too large: over 256 steps once its repetitions are expanded"),
        Refusal(pattern: "a{257}", message: "the expression is too large: over 256 steps once its repetitions are expanded"),
        Refusal(pattern: String(repeating: "a", count: 1_001), message: "longer than 1000 characters"),
    ]

    @Test("what needs backtracking, or is not supported, or is too large, is refused saying what and where", arguments: refusals)
    func refused(_ refusal: Refusal) {
        #expect(throws: RouteRegexError.self) { try RouteRegex(refusal.pattern) }
        do {
            _ = try RouteRegex(refusal.pattern)
        } catch {
            #expect(error.description == refusal.message)
        }
    }
}

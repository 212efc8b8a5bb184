import NIOCore
import Testing

@testable import LarderProxy

/// ``ProxyChannelState`` without a channel: what a connection's handler does as requests are read
/// and responses written.
@Suite("ProxyChannelState")
struct ProxyChannelStateTests {
    /// One thing that happens on a connection, and what the state answers.
    enum Step: CustomStringConvertible {
        /// A request head read, while the channel is or is not writable: the step the state says.
        case head(writable: Bool, expect: ProxyChannelState.HeadStep)
        /// ImmediateHits had no answer for it.
        case noImmediateAnswer
        /// An immediate answer written, with a file (started first) or not; what follows.
        case answeredHere(closes: Bool, file: Bool, expect: ProxyChannelState.AnsweredHere)
        /// A request part other than a head: dropped or not.
        case part(isEnd: Bool, dropped: Bool)
        /// A response's end written: whether the responses are complete now.
        case responseEnd(complete: Bool)
        /// A response head with `Connection: close`.
        case responseCloses
        /// The task sends a body from its file.
        case fileStarted
        /// A file is out.
        case fileFinished(ProxyChannelState.FileFinished)
        case leftHTTP(sniffing: Bool)
        case startingTLS
        /// Raw bytes read: handed on or held.
        case raw(handedOn: Bool)
        /// TLS in place: how many buffers were held.
        case tlsInPlace(held: Int)

        var description: String {
            switch self {
            case .head(let writable, let expect): "head(writable: \(writable)) → \(expect)"
            case .noImmediateAnswer: "no immediate answer"
            case .answeredHere(let closes, let file, let expect): "answered here (closes: \(closes), file: \(file)) → \(expect)"
            case .part(let isEnd, let dropped): "part(end: \(isEnd)) dropped: \(dropped)"
            case .responseEnd(let complete): "response end → complete: \(complete)"
            case .responseCloses: "response says close"
            case .fileStarted: "file started"
            case .fileFinished(let expect): "file finished → \(expect)"
            case .leftHTTP(let sniffing): "left HTTP (sniffing: \(sniffing))"
            case .startingTLS: "starting TLS"
            case .raw(let handedOn): "raw → handed on: \(handedOn)"
            case .tlsInPlace(let held): "TLS in place → \(held) held"
            }
        }
    }

    static let origin = TunnelOrigin(scheme: "https", host: "site.example", port: 443)

    static let cases: [(String, Bool, [Step])] = [
        (
            "a hit answered here, then its end dropped; the next head may be answered here too", true,
            [
                .head(writable: true, expect: .askImmediateHits),
                .answeredHere(closes: false, file: false, expect: .init(closeNow: false, event: .requestAnswered)),
                .part(isEnd: true, dropped: true),
                .head(writable: true, expect: .askImmediateHits),
            ]
        ),
        (
            "a head with no immediate answer goes to the task; the next waits for its response's end", true,
            [
                .head(writable: true, expect: .askImmediateHits), .noImmediateAnswer,
                .part(isEnd: true, dropped: false),
                .head(writable: true, expect: .handOn),
                .responseEnd(complete: false),
                .responseEnd(complete: true),
                .head(writable: true, expect: .askImmediateHits),
            ]
        ),
        (
            "a client that does not read is not answered here", true,
            [.head(writable: false, expect: .handOn), .responseEnd(complete: true)]
        ),
        (
            "without immediate hits every head goes to the task", false,
            [.head(writable: true, expect: .handOn), .responseEnd(complete: true), .head(writable: true, expect: .handOn)]
        ),
        (
            "an answer here with its file: the responses are complete only once the file is out", true,
            [
                .head(writable: true, expect: .askImmediateHits),
                .answeredHere(closes: false, file: true, expect: .init(closeNow: false, event: .requestHeadReceived)),
                .part(isEnd: true, dropped: true),
                .fileFinished(.responsesComplete),
            ]
        ),
        (
            "an answer here that ends the connection closes at once without a file, and answers here no more", true,
            [
                .head(writable: true, expect: .askImmediateHits),
                .answeredHere(closes: true, file: false, expect: .init(closeNow: true, event: .requestAnswered)),
                .part(isEnd: true, dropped: true),
                .head(writable: true, expect: .handOn),
            ]
        ),
        (
            "an answer here that ends the connection with its file closes once the file is out", true,
            [
                .head(writable: true, expect: .askImmediateHits),
                .answeredHere(closes: true, file: true, expect: .init(closeNow: false, event: .requestHeadReceived)),
                .fileFinished(.close),
            ]
        ),
        (
            "the task's file: its response's end does not complete the responses until the file is out", true,
            [
                .head(writable: true, expect: .askImmediateHits), .noImmediateAnswer,
                .fileStarted,
                .responseEnd(complete: false),
                .fileFinished(.responsesComplete),
            ]
        ),
        (
            "two files in flight: only the last one out completes the responses", true,
            [
                .head(writable: true, expect: .askImmediateHits), .noImmediateAnswer,
                .fileStarted, .fileStarted,
                .responseEnd(complete: false),
                .fileFinished(.nothing),
                .fileFinished(.responsesComplete),
            ]
        ),
        (
            "a file out while a request is still in flight completes nothing", true,
            [
                .head(writable: true, expect: .askImmediateHits), .noImmediateAnswer,
                .fileStarted,
                .fileFinished(.nothing),
                .responseEnd(complete: true),
            ]
        ),
        (
            "a response that says close stops answers here", true,
            [
                .head(writable: true, expect: .askImmediateHits), .noImmediateAnswer,
                .responseCloses, .responseEnd(complete: true),
                .head(writable: true, expect: .handOn),
            ]
        ),
        (
            "a tunnel's bytes are handed on; no answer here after a tunnel starts", true,
            [.leftHTTP(sniffing: false), .raw(handedOn: true), .head(writable: true, expect: .handOn)]
        ),
        (
            "intercepted TLS: bytes held until it is in place, then hits inside it are answered here", true,
            [
                .leftHTTP(sniffing: true), .head(writable: true, expect: .handOn), .responseEnd(complete: true),
                .startingTLS, .raw(handedOn: false), .raw(handedOn: false), .tlsInPlace(held: 2), .raw(handedOn: true),
                .head(writable: true, expect: .askImmediateHits),
            ]
        ),
        (
            "intercepted TLS without immediate hits still goes to the task", false,
            [.leftHTTP(sniffing: true), .startingTLS, .tlsInPlace(held: 0), .head(writable: true, expect: .handOn)]
        ),
    ]

    @Test("steps of a connection", arguments: Self.cases.indices)
    func steps(_ index: Int) {
        let (name, hasHits, steps) = Self.cases[index]
        var state = ProxyChannelState(hasImmediateHits: hasHits)
        for (number, step) in steps.enumerated() {
            let comment = Comment(rawValue: "\(name), step \(number + 1): \(step)")
            switch step {
            case .head(let writable, let expect):
                #expect(state.requestHead(writable: writable) == expect, comment)
            case .noImmediateAnswer:
                state.handedOn()
            case .answeredHere(let closes, let file, let expect):
                if file { state.fileStarted() }
                #expect(state.answeredHere(closes: closes) == expect, comment)
            case .part(let isEnd, let dropped):
                #expect(state.dropsRequestPart(isEnd: isEnd) == dropped, comment)
            case .responseEnd(let complete):
                #expect(state.responseEndWritten() == complete, comment)
            case .responseCloses:
                state.responseClosesConnection()
            case .fileStarted:
                state.fileStarted()
            case .fileFinished(let expect):
                #expect(state.fileFinished() == expect, comment)
            case .leftHTTP(let sniffing):
                state.leftHTTP(sniffing: sniffing)
                #expect(state.reader == (sniffing ? .sniffer : .decoder), comment)
            case .startingTLS:
                state.startingTLS(for: Self.origin)
                #expect(state.tunnel?.base == Self.origin.base, comment)
                #expect(state.reader == .decoder, comment)
            case .raw(let handedOn):
                #expect((state.rawBytes(ByteBuffer(string: "x")) != nil) == handedOn, comment)
            case .tlsInPlace(let held):
                #expect(state.tlsInPlace().count == held, comment)
            }
        }
    }
}

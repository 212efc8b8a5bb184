import NIOCore

/// What a client connection's ``ProxyChannelAdapter`` knows between events, as a pure value: the
/// adapter feeds it what it reads and writes and carries out what it answers (which
/// ``ClientConnectionEvent`` to tell ``ClientTimeouts``, whether to close).
///
/// - A request head may be **answered here** (``ImmediateHits``) only while no request handed to
///   the connection's task is unanswered, so answers keep the order of requests; the rest of a
///   request answered here (its `.end`) is dropped, not handed on.
/// - A body sent **from its file** is out only when its write completes: until then the responses
///   are not complete (``ClientTimeouts`` must not start the idle timeout under a long download),
///   and an answer that ends the connection closes it only then (a close drops what NIO still holds).
/// - Immediate answers stop for good once a response says `Connection: close` or the connection
///   becomes a tunnel, and start again inside intercepted TLS, whose requests are origin-form
///   targets of the tunnel's origin.
/// - While TLS is put in place, bytes the old reader hands over are **held**, to be read by the
///   TLS handler once the pipeline is rebuilt.
struct ProxyChannelState {
    /// Which handler reads the client's bytes ahead of the adapter.
    enum Reader: Equatable {
        /// The HTTP request decoder.
        case decoder
        /// The ``TunnelSniffer``, while a `CONNECT` tunnel's first bytes are awaited.
        case sniffer
    }

    /// What to do with a request head just read.
    enum HeadStep: Equatable {
        /// Ask ``ImmediateHits``; then ``answeredHere(closes:)`` or ``handedOn()``.
        case askImmediateHits
        /// Hand it to the connection's task (counted already: tell ``ClientConnectionEvent/requestHeadReceived``).
        case handOn
    }

    /// What to do once an immediate answer is written.
    struct AnsweredHere: Equatable {
        /// Close the connection now (the answer ends it, and no file is in flight).
        var closeNow: Bool
        /// What to tell ``ClientTimeouts``: ``ClientConnectionEvent/requestAnswered``, or only
        /// ``ClientConnectionEvent/requestHeadReceived`` while a file is in flight.
        var event: ClientConnectionEvent
    }

    /// What to do once a body's file is out.
    enum FileFinished: Equatable {
        case nothing
        /// An answer that ended the connection was waiting for it.
        case close
        /// Every response was written meanwhile: tell ``ClientConnectionEvent/responsesComplete``.
        case responsesComplete
    }

    /// Whether this connection has ``ImmediateHits`` at all (the proxy may be configured without).
    let hasImmediateHits: Bool
    /// Whether request heads may be answered here now.
    private(set) var answersImmediately: Bool
    /// The intercepted tunnel the requests are read in (their targets are origin-form), once TLS started.
    private(set) var tunnel: TunnelOrigin?
    private(set) var reader = Reader.decoder
    /// Requests handed to the connection's task whose response has not ended yet.
    private(set) var requestsInFlight = 0
    /// The rest of a request answered here is dropped.
    private var droppingRequest = false
    /// Bodies being sent from their files.
    private(set) var filesInFlight = 0
    /// Every response was written while a file was still in flight.
    private var completeAfterFiles = false
    /// An answer that ends the connection went out while a file was in flight.
    private var closeAfterFiles = false
    /// Bytes read while TLS is put in place (nil when it is not).
    private var heldForTLS: [ByteBuffer]?

    init(hasImmediateHits: Bool) {
        self.hasImmediateHits = hasImmediateHits
        self.answersImmediately = hasImmediateHits
    }

    // MARK: Reading

    /// Whether a request part is dropped (the rest of a request answered here); asked of every
    /// part before it is handled.
    mutating func dropsRequestPart(isEnd: Bool) -> Bool {
        guard self.droppingRequest else { return false }
        if isEnd { self.droppingRequest = false }
        return true
    }

    /// A request head was read; `writable` is whether the channel takes writes now (an answer
    /// here must not queue behind a client that does not read: the task's backpressure meets it).
    mutating func requestHead(writable: Bool) -> HeadStep {
        guard self.answersImmediately, self.requestsInFlight == 0, writable else {
            self.handedOn()
            return .handOn
        }
        return .askImmediateHits
    }

    /// ``ImmediateHits`` had no answer: the head goes to the task.
    mutating func handedOn() {
        self.requestsInFlight += 1
    }

    /// An immediate answer was written (its file, if any, started: ``fileStarted()``); `closes`
    /// when it ends the connection.
    mutating func answeredHere(closes: Bool) -> AnsweredHere {
        self.droppingRequest = true
        var closeNow = false
        if closes {
            self.answersImmediately = false
            if self.filesInFlight > 0 {
                self.closeAfterFiles = true
            } else {
                closeNow = true
            }
        }
        if self.filesInFlight > 0 {
            self.completeAfterFiles = true
            return AnsweredHere(closeNow: closeNow, event: .requestHeadReceived)
        }
        return AnsweredHere(closeNow: closeNow, event: .requestAnswered)
    }

    /// Bytes read outside HTTP (a tunnel's): the buffer to hand on, or nil when it is held for TLS.
    mutating func rawBytes(_ buffer: ByteBuffer) -> ByteBuffer? {
        guard self.heldForTLS != nil else { return buffer }
        self.heldForTLS?.append(buffer)
        return nil
    }

    // MARK: Writing

    /// A response's end was written. Returns whether to tell
    /// ``ClientConnectionEvent/responsesComplete`` now (every request answered, no file in flight).
    mutating func responseEndWritten() -> Bool {
        self.requestsInFlight = max(0, self.requestsInFlight - 1)
        guard self.requestsInFlight == 0 else { return false }
        if self.filesInFlight > 0 {
            self.completeAfterFiles = true
            return false
        }
        return true
    }

    /// A response head says `Connection: close`: no answer may follow it.
    mutating func responseClosesConnection() {
        self.answersImmediately = false
    }

    /// A body's file started going out.
    mutating func fileStarted() {
        self.filesInFlight += 1
    }

    /// A body's file is out (or failed).
    mutating func fileFinished() -> FileFinished {
        self.filesInFlight -= 1
        guard self.filesInFlight == 0 else { return .nothing }
        if self.closeAfterFiles {
            return .close
        }
        if self.completeAfterFiles, self.requestsInFlight == 0 {
            self.completeAfterFiles = false
            return .responsesComplete
        }
        return .nothing
    }

    // MARK: The pipeline's changes

    /// The connection becomes a tunnel of raw bytes, or awaits its first bytes to tell TLS from
    /// HTTP (`sniffer`): no answer here from now on.
    mutating func leftHTTP(sniffing: Bool) {
        self.answersImmediately = false
        if sniffing { self.reader = .sniffer }
    }

    /// Plain HTTP was found in a sniffed tunnel: the decoder reads again.
    mutating func startedHTTP() {
        self.reader = .decoder
    }

    /// Intercepted TLS for `origin` is being put in place: bytes are held until it is
    /// (``tlsInPlace()``), and hits inside it are answered here again.
    mutating func startingTLS(for origin: TunnelOrigin) {
        self.answersImmediately = self.hasImmediateHits
        self.tunnel = origin
        self.heldForTLS = []
        self.reader = .decoder
    }

    /// TLS is in place: the bytes held meanwhile, for the TLS handler to read first.
    mutating func tlsInPlace() -> [ByteBuffer] {
        defer { self.heldForTLS = nil }
        return self.heldForTLS ?? []
    }
}

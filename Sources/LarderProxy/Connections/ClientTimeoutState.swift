import NIOCore

/// Which deadline a client connection is under, as a pure value: the ``ClientTimeouts`` handler
/// feeds it what happens on the connection and carries out what it answers.
///
/// - A connection starts **reading a head**: its first request must be whole within the header
///   timeout.
/// - While a request is **busy** (its head arrived, its response is not finished) nothing is
///   timed here: upstream transfers have their own timeouts.
/// - **Awaiting** the next request, a connection may idle for the idle timeout; the first byte
///   of a request starts the header timeout.
/// - A **tunnel** (CONNECT pass-through, WebSocket) closes after the tunnel idle timeout with no
///   byte either way, or the half-closed timeout once one side has finished.
struct ClientTimeoutState: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        case readingHead(since: NIODeadline)
        case busy
        case awaitingRequest(since: NIODeadline)
        case tunnel
        case halfClosedTunnel(since: NIODeadline)
    }

    /// What the handler does when a timer fires.
    enum Expiry: Sendable, Equatable {
        /// Nothing is due yet: check again at this deadline (nil: no deadline in this phase).
        case checkAgain(at: NIODeadline?)
        /// Close the connection; `requestTimeout` when a request head was cut off (answer 408 first).
        case close(requestTimeout: Bool)
    }

    let limits: ClientLimits
    private(set) var phase: Phase
    /// The last byte read or written in a tunnel.
    private var lastTunnelActivity: NIODeadline
    /// Whether a byte of the awaited request has arrived (a head cut off gets a 408).
    private var requestStarted = false

    init(limits: ClientLimits, now: NIODeadline) {
        self.limits = limits
        self.phase = .readingHead(since: now)
        self.lastTunnelActivity = now
    }

    /// The deadline of the current phase, if it has one.
    var deadline: NIODeadline? {
        switch self.phase {
        case .readingHead(let since): since + Self.amount(self.limits.headerTimeout)
        case .busy: nil
        case .awaitingRequest(let since): since + Self.amount(self.limits.idleTimeout)
        case .tunnel: self.lastTunnelActivity + Self.amount(self.limits.tunnelIdleTimeout)
        case .halfClosedTunnel(let since):
            min(since + Self.amount(self.limits.halfClosedTimeout), self.lastTunnelActivity + Self.amount(self.limits.tunnelIdleTimeout))
        }
    }

    /// Whether the connection waits for a request with no byte of it yet (it may be closed to make
    /// room for another client without cutting anything off).
    var isWaitingForRequest: Bool {
        switch self.phase {
        case .awaitingRequest: true
        case .readingHead: !self.requestStarted
        case .busy, .tunnel, .halfClosedTunnel: false
        }
    }

    /// Whether the connection is a tunnel (its bytes count as activity).
    var isTunnel: Bool {
        switch self.phase {
        case .tunnel, .halfClosedTunnel: true
        case .readingHead, .busy, .awaitingRequest: false
        }
    }

    /// Bytes arrived from the client. Returns true when a new, nearer deadline was armed (the
    /// handler schedules a check for it).
    /// `now` is read only when the phase needs it (not while a request is busy).
    mutating func bytesRead(now: @autoclosure () -> NIODeadline) -> Bool {
        switch self.phase {
        case .awaitingRequest:
            self.phase = .readingHead(since: now())
            self.requestStarted = true
            return true
        case .tunnel, .halfClosedTunnel:
            self.lastTunnelActivity = now()
            return false
        case .readingHead:
            self.requestStarted = true
            return false
        case .busy:
            return false
        }
    }

    /// Bytes were written to the client (only tunnels count it).
    mutating func bytesWritten(now: NIODeadline) {
        switch self.phase {
        case .tunnel, .halfClosedTunnel: self.lastTunnelActivity = now
        case .readingHead, .busy, .awaitingRequest: break
        }
    }

    /// A whole request head arrived.
    mutating func requestHeadReceived() {
        switch self.phase {
        case .readingHead, .awaitingRequest: self.phase = .busy
        case .busy, .tunnel, .halfClosedTunnel: break
        }
    }

    /// Every response so far has been written: the connection awaits its next request.
    mutating func responsesComplete(now: NIODeadline) {
        switch self.phase {
        case .busy, .readingHead:
            self.phase = .awaitingRequest(since: now)
            self.requestStarted = false
        case .awaitingRequest, .tunnel, .halfClosedTunnel: break
        }
    }

    /// The connection became a tunnel.
    mutating func tunnelStarted(now: NIODeadline) {
        self.phase = .tunnel
        self.lastTunnelActivity = now
    }

    /// One side of a tunnel finished sending.
    mutating func halfClosed(now: NIODeadline) {
        if case .tunnel = self.phase {
            self.phase = .halfClosedTunnel(since: now)
        }
    }

    /// A timer fired at `now`.
    func expire(now: NIODeadline) -> Expiry {
        guard let deadline = self.deadline else { return .checkAgain(at: nil) }
        guard now >= deadline else { return .checkAgain(at: deadline) }
        if case .readingHead = self.phase {
            return .close(requestTimeout: self.requestStarted)
        }
        return .close(requestTimeout: false)
    }

    private static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

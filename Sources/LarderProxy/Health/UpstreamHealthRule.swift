import LarderUpstream

/// What one attempt to reach an origin says about its health, for its back-off (``HostHealth``):
/// the one rule ``HealthRecordingUpstream`` and ``HealthRecordingConnector`` record by
/// (docs/SERVING.md, "Disconnected operation").
enum UpstreamHealthRule: Sendable, Hashable {
    /// An HTTP exchange (fetches, forwarded and queued writes, replays): any answer shows the origin
    /// reachable, a 5xx included (the origin answered); a failure while connecting
    /// (``UpstreamError/isConnectFailure``: DNS, refused, connect timeout, TLS) shows it unreachable;
    /// a stall, a reset or a cancellation shows nothing.
    case exchange
    /// A declared request's run: as ``exchange``, but only a 2xx answer (the status it would
    /// store) shows the origin reachable, whether or not its body is then read and stored.
    case declaredRequest
    /// A blind tunnel's connection: opened, the origin is reachable; any failure to open it shows
    /// it unreachable.
    case tunnel
    /// A WebSocket relay's connection: opened, or refused only for its certificate (the host was
    /// reached: no reason to back off from it), the origin is reachable; any other failure shows it
    /// unreachable.
    case webSocket

    /// How an attempt ended.
    enum Outcome: Sendable {
        /// An HTTP answer came, with this status.
        case answered(status: Int)
        /// A tunnel's or a WebSocket's connection opened.
        case opened
        /// It failed with this error.
        case failed(any Error)
    }

    /// What an attempt shows.
    enum Evidence: Sendable, Hashable {
        case reachable
        case unreachable
        case nothing
    }

    /// What `outcome` shows. A request refused for its address (``UpstreamError/Kind/forbiddenAddress``)
    /// never reached the origin, so it shows nothing: a client on another machine cannot put an
    /// origin into back-off for the box's own user.
    func evidence(_ outcome: Outcome) -> Evidence {
        if case .failed(let error as UpstreamError) = outcome, error.kind == .forbiddenAddress {
            return .nothing
        }
        switch (self, outcome) {
        case (.declaredRequest, .answered(let status)):
            return (200..<300).contains(status) ? .reachable : .nothing
        case (_, .answered), (_, .opened):
            return .reachable
        case (.exchange, .failed(let error)), (.declaredRequest, .failed(let error)):
            return (error as? UpstreamError)?.isConnectFailure == true ? .unreachable : .nothing
        case (.tunnel, .failed):
            return .unreachable
        case (.webSocket, .failed(let error)):
            return (error as? UpstreamError)?.kind == .tls ? .reachable : .unreachable
        }
    }
}

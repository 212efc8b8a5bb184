import NIOCore

/// What the ``ProxyChannelAdapter`` tells ``ClientTimeouts`` about a connection's requests, as
/// outbound user events.
enum ClientConnectionEvent: Sendable {
    /// A whole request head arrived.
    case requestHeadReceived
    /// A whole request head arrived and its answer was written at once (an immediate hit): both
    /// of the events before, in one trip through the pipeline.
    case requestAnswered
    /// Every response so far has been written.
    case responsesComplete
    /// The connection is a tunnel from now on (its HTTP codec is gone).
    case tunnelStarted
}

/// Closes a client connection that overstays its phase's deadline (``ClientTimeoutState``): a
/// head that does not arrive in time (answered 408 when part of it came), an idle keep-alive
/// connection, an idle or half-finished tunnel. First in the pipeline, so it sees every byte;
/// a timer is scheduled only when a deadline is armed, not per byte.
final class ClientTimeouts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    private var state: ClientTimeoutState
    private var timer: Scheduled<Void>?
    /// When the pending `timer` fires.
    private var timerDeadline: NIODeadline?
    private let lifecycle: ConnectionLifecycle?

    /// A handler whose first deadline runs from `now`; `lifecycle` learns when the connection
    /// waits for a request (so it may be closed to make room for another).
    init(limits: ClientLimits, now: NIODeadline = .now(), lifecycle: ConnectionLifecycle? = nil) {
        self.state = ClientTimeoutState(limits: limits, now: now)
        self.lifecycle = lifecycle
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.lifecycle?.setWaitingForRequest(since: context.eventLoop.now)
        self.schedule(at: self.state.deadline, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
        self.timerDeadline = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
        self.timerDeadline = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let wasWaiting = self.state.isWaitingForRequest
        if self.state.bytesRead(now: context.eventLoop.now) {
            self.schedule(at: self.state.deadline, context: context)
        }
        if wasWaiting {
            self.lifecycle?.setWaitingForRequest(since: nil)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if self.state.isTunnel {
            self.state.bytesWritten(now: context.eventLoop.now)
        }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output {
            self.state.halfClosed(now: context.eventLoop.now)
            self.schedule(at: self.state.deadline, context: context)
        }
        context.close(mode: mode, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            self.state.halfClosed(now: context.eventLoop.now)
            self.schedule(at: self.state.deadline, context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let event = event as? ClientConnectionEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        let now = context.eventLoop.now
        let wasWaiting = self.state.isWaitingForRequest
        switch event {
        case .requestHeadReceived:
            self.state.requestHeadReceived()
        case .requestAnswered:
            self.state.requestHeadReceived()
            self.state.responsesComplete(now: now)
        case .responsesComplete:
            self.state.responsesComplete(now: now)
        case .tunnelStarted:
            self.state.tunnelStarted(now: now)
        }
        if self.state.isWaitingForRequest != wasWaiting {
            self.lifecycle?.setWaitingForRequest(since: wasWaiting ? nil : now)
        }
        self.schedule(at: self.state.deadline, context: context)
        promise?.succeed()
    }

    /// Makes sure a check runs by `deadline`. A pending check that fires earlier re-arms itself
    /// when it finds nothing due, so a busy connection reschedules no timer per request.
    private func schedule(at deadline: NIODeadline?, context: ChannelHandlerContext) {
        guard let deadline else { return }
        if self.timer != nil, let pending = self.timerDeadline, pending <= deadline {
            return
        }
        self.timer?.cancel()
        self.timerDeadline = deadline
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            handler.timerDeadline = nil
            handler.expire(context: context)
        }
    }

    private func expire(context: ChannelHandlerContext) {
        switch self.state.expire(now: context.eventLoop.now) {
        case .checkAgain(let deadline):
            self.schedule(at: deadline, context: context)
        case .close(let requestTimeout):
            if requestTimeout {
                // No response is in progress while a head is awaited: these bytes go straight out.
                let answer = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                context.writeAndFlush(NIOAny(ByteBuffer(string: answer)), promise: nil)
            }
            context.close(promise: nil)
        }
    }
}

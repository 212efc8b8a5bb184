import LarderUpstream
import NIOCore
import NIOHTTP1

/// Sits between the hand-built HTTP codec and the `NIOAsyncChannel` of a client connection,
/// so one async channel carries HTTP first and tunnel bytes after a `CONNECT`.
final class ProxyChannelAdapter: ChannelDuplexHandler, RemovableChannelHandler {
    // `Any` because the type of what arrives changes when the codec is removed:
    // `HTTPServerRequestPart` before, `IOData`/`ByteBuffer` after.
    typealias InboundIn = Any
    typealias InboundOut = ProxyInbound
    typealias OutboundIn = ProxyOutbound
    typealias OutboundOut = Any

    private let decoderName: String
    private let encoderName: String
    /// Answers hits right here, on the event loop (nil: every request goes to the task).
    private let immediateHits: ImmediateHits?
    /// What the connection is doing: the rules of when to answer here, when responses are
    /// complete and when to close are in ``ProxyChannelState``, tested without a channel.
    private var state: ProxyChannelState

    /// The handler that reads the client's bytes ahead of this one.
    private var readerName: String {
        switch self.state.reader {
        case .decoder: self.decoderName
        case .sniffer: TunnelSniffer.name
        }
    }

    init(decoderName: String, encoderName: String, immediateHits: ImmediateHits? = nil) {
        self.decoderName = decoderName
        self.encoderName = encoderName
        self.immediateHits = immediateHits
        self.state = ProxyChannelState(hasImmediateHits: immediateHits != nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case let part as HTTPServerRequestPart:
            let isEnd: Bool
            if case .end = part { isEnd = true } else { isEnd = false }
            if self.state.dropsRequestPart(isEnd: isEnd) {
                return
            }
            if case .head(let head) = part {
                switch self.state.requestHead(writable: context.channel.isWritable) {
                case .askImmediateHits:
                    if let answer = self.immediateHits?.answer(head, tunnel: self.state.tunnel, allocator: context.channel.allocator) {
                        self.write(answer, context: context)
                        let after = self.state.answeredHere(closes: answer.close)
                        if after.closeNow {
                            context.close(promise: nil)
                        }
                        context.triggerUserOutboundEvent(after.event, promise: nil)
                        return
                    }
                    self.state.handedOn()
                case .handOn:
                    break
                }
                context.triggerUserOutboundEvent(ClientConnectionEvent.requestHeadReceived, promise: nil)
            }
            context.fireChannelRead(self.wrapInboundOut(.http(part)))
        case let traffic as TunnelTraffic:
            context.fireChannelRead(self.wrapInboundOut(.sniffed(traffic)))
        case let buffer as ByteBuffer:
            self.raw(buffer, context: context)
        case let ioData as IOData:
            if case .byteBuffer(let buffer) = ioData {
                self.raw(buffer, context: context)
            }
        default:
            break
        }
    }

    private func raw(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        if let buffer = self.state.rawBytes(buffer) {
            context.fireChannelRead(self.wrapInboundOut(.raw(buffer)))
        }
    }

    private func write(_ answer: ImmediateHits.Answer, context: ChannelHandlerContext) {
        // The head is serialised already: it goes past the encoder, which has no response open
        // (nothing is in flight), straight towards the socket.
        guard let encoder = try? context.pipeline.syncOperations.context(name: self.encoderName) else {
            context.close(promise: nil)
            return
        }
        switch answer.body {
        case .bytes(let body):
            encoder.write(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
            encoder.writeAndFlush(NIOAny(IOData.byteBuffer(body)), promise: nil)
        case .file(let file):
            encoder.write(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
            self.send(file, as: { NIOAny($0) }, through: encoder, context: context, promise: nil)
            encoder.flush()
        case nil:
            encoder.writeAndFlush(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .http(let part):
            var complete = false
            switch part {
            case .end:
                complete = self.state.responseEndWritten()
            case .head(let head) where head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }:
                // The connection ends after this response (perhaps its body ends with it): no
                // answer may follow it.
                self.state.responseClosesConnection()
            default:
                break
            }
            context.write(NIOAny(part), promise: promise)
            if complete {
                context.triggerUserOutboundEvent(ClientConnectionEvent.responsesComplete, promise: nil)
            }
        case .file(let file, let completion):
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { completion.settle($0) }
            written.futureResult.cascade(to: promise)
            self.send(file, as: { NIOAny(HTTPServerResponsePart.body($0)) }, through: context, context: context, promise: written)
        case .raw(let buffer):
            context.write(NIOAny(buffer), promise: promise)
        case .enterTunnelMode:
            // Everything written before this has passed the encoder already (writes are ordered),
            // so the codec can go. Removing the decoder forwards the bytes it still holds.
            self.state.leftHTTP(sniffing: false)
            context.flush()
            context.triggerUserOutboundEvent(ClientConnectionEvent.tunnelStarted, promise: nil)
            CodecRemoval.remove(encoderName: self.encoderName, decoderName: self.readerName, context: context, promise: promise)
        case .sniffTunnel:
            // Requests inside the tunnel are origin-form for its host: the task serves them.
            self.sniffTunnel(context: context, promise: promise)
        case .startTLS(let factory, let origin):
            self.startTLS(factory, origin: origin, context: context, promise: promise)
        case .startHTTP:
            self.startHTTP(context: context, promise: promise)
        }
    }

    /// Writes the bytes of `file`, each write wrapped by `part` (for this handler's `context`, or
    /// for the encoder's of an immediate answer, `writer`), keeping the file open until they are
    /// written or have failed. A plain connection sends the file's region by `sendfile`; inside
    /// intercepted TLS, which must see the bytes to encrypt them, the file is read in chunks here,
    /// on the event loop, as `sendfile` reads it (``streamThroughTLS(_:from:as:through:context:promise:)``).
    /// Should the file be shortened meanwhile (by something other than Larder), `sendfile` would
    /// find nothing more to send and NIO would try again for ever: a check each second closes the
    /// connection then, so the client sees a cut body, never a wrong one.
    private func send(
        _ file: StoredBodyFile,
        as part: @escaping (IOData) -> NIOAny,
        through writer: ChannelHandlerContext,
        context: ChannelHandlerContext,
        promise: EventLoopPromise<Void>?
    ) {
        let written = context.eventLoop.makePromise(of: Void.self)
        let encrypted = self.state.tunnel?.scheme == "https"
        let watch =
            encrypted
            ? nil
            : context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [channel = context.channel] _ in
                if !file.isIntact {
                    channel.close(promise: nil)
                }
            }
        self.state.fileStarted()
        written.futureResult.assumeIsolated().whenComplete { _ in
            watch?.cancel()
            withExtendedLifetime(file) {}
            switch self.state.fileFinished() {
            case .nothing:
                break
            case .close:
                context.close(promise: nil)
            case .responsesComplete:
                context.triggerUserOutboundEvent(ClientConnectionEvent.responsesComplete, promise: nil)
            }
        }
        written.futureResult.cascade(to: promise)
        if encrypted {
            self.streamThroughTLS(file, from: file.range.lowerBound, as: part, through: writer, context: context, promise: written)
        } else {
            writer.write(part(.fileRegion(file.region)), promise: written)
        }
    }

    /// How much of a body file is read for each write through TLS: one chunk in flight at a time.
    static let tlsChunkLength = 64 * 1024

    /// Writes the bytes of `file` from `offset` to its range's end, a chunk at a time, each read
    /// once the one before it is out (the socket's pace: one chunk in memory per connection). A
    /// file found shorter than its range closes the connection, as `sendfile`'s watch does.
    private func streamThroughTLS(
        _ file: StoredBodyFile,
        from offset: Int64,
        as part: @escaping (IOData) -> NIOAny,
        through writer: ChannelHandlerContext,
        context: ChannelHandlerContext,
        promise: EventLoopPromise<Void>
    ) {
        let length = Int(min(Int64(Self.tlsChunkLength), file.range.upperBound - offset))
        guard length > 0 else {
            promise.succeed()
            return
        }
        let chunk = file.read(at: offset, length: length, allocator: context.channel.allocator)
        guard chunk.readableBytes == length else {
            promise.fail(ChannelError.ioOnClosedChannel)
            context.close(promise: nil)
            return
        }
        let next = offset + Int64(length)
        guard next < file.range.upperBound else {
            writer.writeAndFlush(part(.byteBuffer(chunk)), promise: promise)
            return
        }
        writer.writeAndFlush(part(.byteBuffer(chunk))).assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                self.streamThroughTLS(file, from: next, as: part, through: writer, context: context, promise: promise)
            case .failure(let error):
                promise.fail(error)
            }
        }
    }

    /// Puts a ``TunnelSniffer`` in place of the CONNECT's decoder, which is spent (it parsed an
    /// upgrade): whatever the decoder still held reaches the sniffer as the decoder goes.
    private func sniffTunnel(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        context.flush()
        let operations = context.pipeline.syncOperations
        do {
            try operations.addHandler(TunnelSniffer(), name: TunnelSniffer.name, position: .before(self))
        } catch {
            promise?.fail(error)
            return
        }
        self.state.leftHTTP(sniffing: true)
        operations.removeHandler(name: self.decoderName).cascade(to: promise)
    }

    /// Puts a new HTTP decoder behind the sniffer, then removes the sniffer: the bytes it held
    /// are the decoder's first.
    private func startHTTP(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let operations = context.pipeline.syncOperations
        do {
            try operations.addHandler(
                ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)),
                name: self.decoderName,
                position: .before(self)
            )
        } catch {
            promise?.fail(error)
            return
        }
        let sniffer = self.readerName
        self.state.startedHTTP()
        operations.removeHandler(name: sniffer).cascade(to: promise)
    }

    /// Rebuilds the pipeline as [TLS, `ClientTimeouts`, encoder, new decoder, adapter] in place of
    /// the sniffer: whatever it held is the start of the TLS stream. Hits inside intercepted TLS
    /// are answered here too, as plain ones are.
    private func startTLS(
        _ factory: TLSHandlerFactory, origin: TunnelOrigin, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?
    ) {
        context.flush()
        let operations = context.pipeline.syncOperations
        do {
            try operations.addHandler(try factory.make(), position: .first)
        } catch {
            promise?.fail(error)
            return
        }
        let sniffer = self.readerName
        self.state.startingTLS(for: origin)
        operations.removeHandler(name: sniffer).hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            let held = self.state.tlsInPlace()
            do {
                try result.get()
                try operations.addHandler(
                    ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)),
                    name: self.decoderName,
                    position: .before(self)
                )
                for buffer in held {
                    operations.fireChannelRead(NIOAny(buffer))
                }
                promise?.succeed()
            } catch {
                promise?.fail(error)
            }
        }
    }
}

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
    /// The handler that reads the client's bytes ahead of this one: the HTTP decoder, or the
    /// ``TunnelSniffer`` while a `CONNECT` tunnel's first bytes are awaited.
    private var readerName: String
    /// While TLS is being put in place, bytes the old decoder hands over are held here, to be
    /// fed to the TLS handler once the pipeline is rebuilt.
    private var heldForTLS: [ByteBuffer]?
    /// Answers plain hits right here, on the event loop (nil: every request goes to the task).
    private var immediateHits: ImmediateHits?
    /// The answerer of plain hits as configured, put back in place once intercepted TLS starts.
    private let configuredHits: ImmediateHits?
    /// The intercepted tunnel the requests are read in (their targets are origin-form), once TLS started.
    private var tunnel: TunnelOrigin?
    /// Requests handed to the connection's task whose response has not ended yet: an immediate
    /// answer may only be given when there are none, so answers keep the order of requests.
    private var requestsInFlight = 0
    /// The rest of a request answered here (its `.end`) is dropped, not handed on.
    private var droppingRequest = false
    /// Bodies being sent from their files: until they are out, the responses are not complete
    /// (``ClientTimeouts`` must not start the idle timeout under a long download).
    private var filesInFlight = 0
    /// Every response was written while a file was still in flight: tell ``ClientTimeouts`` once it is out.
    private var completeAfterFiles = false
    /// An immediate answer that ends the connection went out with a file: close once it is out
    /// (a close drops what NIO still holds).
    private var closeAfterFiles = false

    init(decoderName: String, encoderName: String, immediateHits: ImmediateHits? = nil) {
        self.decoderName = decoderName
        self.encoderName = encoderName
        self.readerName = decoderName
        self.immediateHits = immediateHits
        self.configuredHits = immediateHits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case let part as HTTPServerRequestPart:
            if self.droppingRequest {
                if case .end = part { self.droppingRequest = false }
                return
            }
            if case .head(let head) = part {
                // Only with nothing in flight (answers keep request order) and room to write (a
                // client that does not read must meet the task's backpressure).
                if self.requestsInFlight == 0, context.channel.isWritable,
                    let answer = self.immediateHits?.answer(head, tunnel: self.tunnel, allocator: context.channel.allocator)
                {
                    self.droppingRequest = true
                    self.write(answer, context: context)
                    if self.filesInFlight > 0 {
                        context.triggerUserOutboundEvent(ClientConnectionEvent.requestHeadReceived, promise: nil)
                        self.completeAfterFiles = true
                    } else {
                        context.triggerUserOutboundEvent(ClientConnectionEvent.requestAnswered, promise: nil)
                    }
                    return
                }
                context.triggerUserOutboundEvent(ClientConnectionEvent.requestHeadReceived, promise: nil)
                self.requestsInFlight += 1
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
        if self.heldForTLS != nil {
            self.heldForTLS?.append(buffer)
        } else {
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
            self.send(file, as: NIOAny(IOData.fileRegion(file.region)), through: encoder, context: context, promise: nil)
            encoder.flush()
        case nil:
            encoder.writeAndFlush(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
        }
        if answer.close {
            self.immediateHits = nil
            if self.filesInFlight > 0 {
                self.closeAfterFiles = true
            } else {
                context.close(promise: nil)
            }
        }
    }

    /// Tells ``ClientTimeouts`` that every response has been written, once no file is in flight.
    private func responsesComplete(context: ChannelHandlerContext) {
        if self.filesInFlight > 0 {
            self.completeAfterFiles = true
        } else {
            context.triggerUserOutboundEvent(ClientConnectionEvent.responsesComplete, promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch self.unwrapOutboundIn(data) {
        case .http(let part):
            var complete = false
            switch part {
            case .end:
                self.requestsInFlight = max(0, self.requestsInFlight - 1)
                complete = self.requestsInFlight == 0
            case .head(let head) where head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "close" }:
                // The connection ends after this response (perhaps its body ends with it): no
                // answer may follow it.
                self.immediateHits = nil
            default:
                break
            }
            context.write(NIOAny(part), promise: promise)
            if complete {
                self.responsesComplete(context: context)
            }
        case .file(let file, let completion):
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { completion.settle($0) }
            written.futureResult.cascade(to: promise)
            self.send(
                file, as: NIOAny(HTTPServerResponsePart.body(.fileRegion(file.region))), through: context, context: context,
                promise: written)
        case .raw(let buffer):
            context.write(NIOAny(buffer), promise: promise)
        case .enterTunnelMode:
            // Everything written before this has passed the encoder already (writes are ordered),
            // so the codec can go. Removing the decoder forwards the bytes it still holds.
            self.immediateHits = nil
            context.flush()
            context.triggerUserOutboundEvent(ClientConnectionEvent.tunnelStarted, promise: nil)
            CodecRemoval.remove(encoderName: self.encoderName, decoderName: self.readerName, context: context, promise: promise)
        case .sniffTunnel:
            // Requests inside the tunnel are origin-form for its host: the task serves them.
            self.immediateHits = nil
            self.sniffTunnel(context: context, promise: promise)
        case .startTLS(let factory, let origin):
            // Hits inside intercepted TLS are answered here too, as plain ones are.
            self.immediateHits = self.configuredHits
            self.tunnel = origin
            self.startTLS(factory, context: context, promise: promise)
        case .startHTTP:
            self.startHTTP(context: context, promise: promise)
        }
    }

    /// Writes `part`, the region of `file`, through `writer` (this handler's `context`, or the
    /// encoder's for an immediate answer), keeping the file open until it is written or has
    /// failed. Should the file be shortened meanwhile (by something other than Larder), `sendfile`
    /// would find nothing more to send and NIO would try again for ever: a check each second
    /// closes the connection then, so the client sees a cut body, never a wrong one.
    private func send(
        _ file: StoredBodyFile,
        as part: NIOAny,
        through writer: ChannelHandlerContext,
        context: ChannelHandlerContext,
        promise: EventLoopPromise<Void>?
    ) {
        let written = context.eventLoop.makePromise(of: Void.self)
        let watch = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { [channel = context.channel] _ in
            if !file.isIntact {
                channel.close(promise: nil)
            }
        }
        self.filesInFlight += 1
        written.futureResult.assumeIsolated().whenComplete { _ in
            watch.cancel()
            withExtendedLifetime(file) {}
            self.filesInFlight -= 1
            guard self.filesInFlight == 0 else { return }
            if self.closeAfterFiles {
                context.close(promise: nil)
            } else if self.completeAfterFiles, self.requestsInFlight == 0 {
                self.completeAfterFiles = false
                context.triggerUserOutboundEvent(ClientConnectionEvent.responsesComplete, promise: nil)
            }
        }
        written.futureResult.cascade(to: promise)
        writer.write(part, promise: written)
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
        self.readerName = TunnelSniffer.name
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
        self.readerName = self.decoderName
        operations.removeHandler(name: sniffer).cascade(to: promise)
    }

    /// Rebuilds the pipeline as [TLS, `ClientTimeouts`, encoder, new decoder, adapter] in place of
    /// the sniffer: whatever it held is the start of the TLS stream.
    private func startTLS(_ factory: TLSHandlerFactory, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        context.flush()
        let operations = context.pipeline.syncOperations
        do {
            try operations.addHandler(try factory.make(), position: .first)
        } catch {
            promise?.fail(error)
            return
        }
        self.heldForTLS = []
        let sniffer = self.readerName
        self.readerName = self.decoderName
        operations.removeHandler(name: sniffer).hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            let held = self.heldForTLS ?? []
            self.heldForTLS = nil
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

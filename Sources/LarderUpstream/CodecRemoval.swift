import NIOCore

/// Takes an HTTP codec out of a pipeline once the connection carries raw bytes (a tunnel, a
/// WebSocket stream), for the adapters that sit behind the codec: the proxy's client side and the
/// upstream side of a WebSocket stream.
public enum CodecRemoval {
    /// Removes the encoder and the decoder named, then completes `promise`. Removing the decoder
    /// hands on the bytes it still held; they reach the adapter's reader only with a
    /// read-complete, which is fired from `context` (the adapter): fired from the pipeline's head,
    /// a TLS handler there would swallow it, having delivered nothing itself.
    public static func remove(
        encoderName: String,
        decoderName: String,
        context: ChannelHandlerContext,
        promise: EventLoopPromise<Void>?
    ) {
        let pipeline = context.pipeline
        let removeEncoder = pipeline.removeHandler(name: encoderName)
        let removeDecoder = pipeline.removeHandler(name: decoderName)
        removeEncoder.and(removeDecoder).hop(to: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success:
                context.fireChannelReadComplete()
                promise?.succeed()
            case .failure(let error):
                promise?.fail(error)
            }
        }
    }
}

import NIOCore

/// Connects a response body's back-pressure signals to its transfer on the curl thread.
struct CurlBodyProducerDelegate: NIOAsyncSequenceProducerDelegate {
    let transfer: CurlTransfer
    let driver: CurlMultiDriver

    /// The consumer drained the buffer below the low watermark: let curl deliver body bytes again.
    func produceMore() {
        self.driver.enqueue(.resumeReceiving(self.transfer))
    }

    /// The consumer went away (or read to the end, in which case the transfer is already over and this does nothing).
    func didTerminate() {
        self.driver.enqueue(.cancel(self.transfer, .consumerGone))
    }
}

// The libcurl client exists only with the `Curl` trait (Package.swift).
#if Curl
    import CCurl
    import Foundation
    import LarderUpstream
    import Logging
    import NIOConcurrencyHelpers
    import Synchronization

    /// Runs one libcurl multi handle on a dedicated thread, the only thread that calls curl.
    ///
    /// Other threads talk to it through ``enqueue(_:)``, which appends to a locked command queue and wakes the thread
    /// with `curl_multi_wakeup`, the one curl function that is safe to call from any thread. The thread loops: run the
    /// queued commands, `curl_multi_perform`, report finished transfers, hand over the response heads read in the pass,
    /// then `curl_multi_poll` until a socket is ready, a curl timer fires, a command is queued, or a second passes.
    ///
    /// `@unchecked Sendable`: `transfers` and the multi handle's use (other than waking it) are confined to the curl
    /// thread; everything else is immutable or behind a lock.
    final class CurlMultiDriver: @unchecked Sendable {
        /// Work for the curl thread.
        enum Command: Sendable {
            /// Add the transfer to the multi handle.
            case start(CurlTransfer)
            /// The body consumer wants more: unpause receiving.
            case resumeReceiving(CurlTransfer)
            /// Request body bytes arrived: unpause sending.
            case resumeSending(CurlTransfer)
            /// Abort the transfer.
            case cancel(CurlTransfer, CurlTransfer.CancelReason)
            /// Fail every transfer with ``UpstreamError/Kind/cancelled`` and stop the thread.
            case shutdown
        }

        private struct Inbox {
            var commands: [Command] = []
            /// The multi handle while the thread takes commands; `nil` before it runs and after it stopped.
            var multi: WakeHandle?
            var shutdownWasRequested = false
        }

        /// The multi handle as other threads hold it. `@unchecked Sendable`: they only pass it to
        /// `curl_multi_wakeup`, which is safe from any thread.
        private struct WakeHandle: @unchecked Sendable {
            let multi: UnsafeMutableRawPointer
        }

        /// How long `curl_multi_poll` waits at most when nothing happens.
        private static let pollTimeoutMilliseconds: Int32 = 1000

        private let inbox = Mutex(Inbox())
        // Condition locks, not `Mutex`: the starting and stopping threads wait for the curl thread's signal.
        private let hasStarted = ConditionLock(value: false)
        private let hasStopped = ConditionLock(value: false)
        private let startFailure = Mutex<UpstreamConfigurationError?>(nil)
        private let curlThreadID = Mutex<pthread_t?>(nil)
        private let configuration: UpstreamConfiguration
        private let logger: Logger

        /// The transfers in the multi handle by easy handle (curl thread only).
        private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        /// Transfers whose final head was read in this pass, handed over at its end (curl thread only).
        private var headsRead: [CurlTransfer] = []
        /// The share handle every transfer's easy handle joins, so that a new connection resumes a TLS
        /// session an earlier one got (curl thread only: no lock callbacks needed).
        private var share: UnsafeMutableRawPointer?

        /// Starts the curl thread and waits until its multi handle is set up.
        init(configuration: UpstreamConfiguration, logger: Logger) throws(UpstreamConfigurationError) {
            self.configuration = configuration
            self.logger = logger
            let thread = Thread { [self] in
                self.run()
            }
            thread.name = "larder-curl"
            thread.start()
            self.hasStarted.lock(whenValue: true)
            self.hasStarted.unlock()
            if let failure = self.startFailure.withLock({ $0 }) {
                throw failure
            }
        }

        /// Queues `command` for the curl thread and wakes it.
        ///
        /// - Returns: `false` when the thread has stopped (or is not running), so the command will never run.
        @discardableResult
        func enqueue(_ command: Command) -> Bool {
            self.inbox.withLock { inbox in
                guard let multi = inbox.multi?.multi else {
                    return false
                }
                let wasEmpty = inbox.commands.isEmpty
                inbox.commands.append(command)
                if wasEmpty {
                    // A non-empty queue already has a wake-up on its way.
                    curl_multi_wakeup(multi)
                }
                return true
            }
        }

        /// Asks the curl thread to fail every transfer with ``UpstreamError/Kind/cancelled`` and stop.
        ///
        /// Idempotent. With `waitUntilStopped`, returns once the thread has stopped (unless called on that thread).
        func shutdown(waitUntilStopped: Bool) {
            let isFirstRequest = self.inbox.withLock { inbox in
                defer { inbox.shutdownWasRequested = true }
                return !inbox.shutdownWasRequested
            }
            if isFirstRequest {
                self.enqueue(.shutdown)
            }
            let isCurlThread = self.curlThreadID.withLock { id in
                id.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            }
            if waitUntilStopped, !isCurlThread {
                self.hasStopped.lock(whenValue: true)
                self.hasStopped.unlock()
            }
        }

        // MARK: The curl thread

        private func run() {
            self.curlThreadID.withLock { $0 = pthread_self() }
            self.configuration.threadSetUp?()
            guard let multi = self.makeMultiHandle() else {
                self.hasStopped.lock()
                self.hasStopped.unlock(withValue: true)
                self.hasStarted.lock()
                self.hasStarted.unlock(withValue: true)
                return
            }
            let wakeHandle = WakeHandle(multi: multi)
            self.inbox.withLock { $0.multi = wakeHandle }
            self.hasStarted.lock()
            self.hasStarted.unlock(withValue: true)

            var runningTransfers: Int32 = 0
            while true {
                let commands = self.inbox.withLock { inbox in
                    defer { inbox.commands.removeAll(keepingCapacity: true) }
                    return inbox.commands
                }
                for (index, command) in commands.enumerated() {
                    if case .shutdown = command {
                        self.stop(multi: multi, unhandled: commands[(index + 1)...])
                        return
                    }
                    self.handle(command, multi: multi)
                }
                let performed = curl_multi_perform(multi, &runningTransfers)
                if performed != CURLM_OK {
                    self.logger.error("curl_multi_perform failed: \(String(cString: curl_multi_strerror(performed)))")
                }
                self.completeFinishedTransfers(multi: multi)
                for transfer in self.headsRead {
                    transfer.handOverHead()
                }
                self.headsRead.removeAll(keepingCapacity: true)
                let polled = curl_multi_poll(multi, nil, 0, Self.pollTimeoutMilliseconds, nil)
                if polled != CURLM_OK {
                    self.logger.error("curl_multi_poll failed: \(String(cString: curl_multi_strerror(polled)))")
                }
            }
        }

        /// Called by a transfer (on the curl thread) whose final head it has just read.
        func handOverAtEndOfPass(_ transfer: CurlTransfer) {
            self.headsRead.append(transfer)
        }

        private func makeMultiHandle() -> UnsafeMutableRawPointer? {
            func fail(_ message: String) {
                self.startFailure.withLock { $0 = UpstreamConfigurationError(message: message) }
            }
            guard let multi = curl_multi_init() else {
                fail("curl_multi_init failed")
                return nil
            }
            let options: [(CURLMoption, Int, String)] = [
                (CURLMOPT_MAX_HOST_CONNECTIONS, self.configuration.maxConnectionsPerHost, "maxConnectionsPerHost"),
                (CURLMOPT_MAX_TOTAL_CONNECTIONS, self.configuration.maxTotalConnections, "maxTotalConnections"),
            ]
            guard let share = curl_share_init() else {
                fail("curl_share_init failed")
                curl_multi_cleanup(multi)
                return nil
            }
            let shared = larder_curl_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
            guard shared == CURLSHE_OK else {
                fail("cannot share TLS sessions between curl handles: \(String(cString: curl_share_strerror(shared)))")
                curl_share_cleanup(share)
                curl_multi_cleanup(multi)
                return nil
            }
            self.share = share
            for (option, value, name) in options {
                let result = larder_curl_multi_setopt_long(multi, option, value)
                guard result == CURLM_OK else {
                    fail("cannot set \(name) to \(value): \(String(cString: curl_multi_strerror(result)))")
                    curl_multi_cleanup(multi)
                    curl_share_cleanup(share)
                    self.share = nil
                    return nil
                }
            }
            return multi
        }

        private func handle(_ command: Command, multi: UnsafeMutableRawPointer) {
            switch command {
            case .start(let transfer):
                if let easy = transfer.start(multi: multi, share: self.share) {
                    self.transfers[easy] = transfer
                }
            case .resumeReceiving(let transfer):
                self.completeIfFailed(transfer, result: transfer.resumeReceiving(), multi: multi)
            case .resumeSending(let transfer):
                self.completeIfFailed(transfer, result: transfer.resumeSending(), multi: multi)
            case .cancel(let transfer, let reason):
                switch transfer.phase {
                case .created:
                    transfer.cancelBeforeStart(reason)
                case .running:
                    self.remove(transfer)
                    transfer.complete(.cancelled(reason), multi: multi)
                case .finished:
                    break
                }
            case .shutdown:
                // Handled by the loop, which stops.
                break
            }
        }

        private func completeIfFailed(_ transfer: CurlTransfer, result: CURLcode, multi: UnsafeMutableRawPointer) {
            guard result != CURLE_OK else {
                return
            }
            self.remove(transfer)
            transfer.complete(.curlResult(result), multi: multi)
        }

        private func remove(_ transfer: CurlTransfer) {
            if let easy = transfer.easy {
                self.transfers.removeValue(forKey: easy)
            }
        }

        private func completeFinishedTransfers(multi: UnsafeMutableRawPointer) {
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                // The message is only valid until the handle is removed, so read it out first.
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else {
                    continue
                }
                let result = message.pointee.data.result
                guard let transfer = self.transfers.removeValue(forKey: easy) else {
                    continue
                }
                transfer.complete(.curlResult(result), multi: multi)
            }
        }

        private func stop(multi: UnsafeMutableRawPointer, unhandled: ArraySlice<Command>) {
            let queued = self.inbox.withLock { inbox in
                inbox.multi = nil
                defer { inbox.commands = [] }
                return inbox.commands
            }
            for command in unhandled + queued {
                if case .start(let transfer) = command {
                    transfer.complete(.cancelled(.shutdown), multi: multi)
                }
            }
            for transfer in self.transfers.values {
                transfer.complete(.cancelled(.shutdown), multi: multi)
            }
            self.transfers.removeAll()
            curl_multi_cleanup(multi)
            // Every easy handle has left it (a transfer's end cleans its handle up).
            curl_share_cleanup(self.share)
            self.share = nil
            self.hasStopped.lock()
            self.hasStopped.unlock(withValue: true)
            self.logger.debug("upstream curl thread stopped")
        }
    }
#endif

import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Waits for SIGINT or SIGTERM.
enum TerminationSignal {
    /// Returns the name of the first SIGINT or SIGTERM received from now on.
    static func wait() async -> String {
        let signals: [(number: Int32, name: String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")]
        let sources = NIOLockedValueBox<[any DispatchSourceSignal]>([])
        let name = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let resumed = NIOLockedValueBox(false)
            for (number, name) in signals {
                // The default action would end the process before the origin stops.
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    let first = resumed.withLockedValue { resumed in
                        defer { resumed = true }
                        return !resumed
                    }
                    if first {
                        continuation.resume(returning: name)
                    }
                }
                source.resume()
                sources.withLockedValue { $0.append(source) }
            }
        }
        sources.withLockedValue { sources in
            for source in sources {
                source.cancel()
            }
        }
        return name
    }
}

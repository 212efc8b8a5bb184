import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM.
enum TerminationSignal {
    /// Returns the name of the first SIGINT or SIGTERM received from now on.
    static func wait() async -> String {
        let signals: [(number: Int32, name: String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")]
        let (received, receiver) = AsyncStream.makeStream(of: String.self)
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in signals {
            // The default action would end the process before the origin stops.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { receiver.yield(name) }
            source.resume()
            sources.append(source)
        }
        var names = received.makeAsyncIterator()
        // The stream never finishes: the first signal is always there.
        let name = await names.next() ?? "SIGTERM"
        for source in sources {
            source.cancel()
        }
        return name
    }
}

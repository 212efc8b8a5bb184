import LarderHTTP
import Synchronization

/// Answers that have gone to their client whole and are being committed to the index, by the
/// cache key requests look up. The commit follows the client's last byte (the client never waits
/// for the disk), so the client's next request for the key can come before it: such a request
/// waits for the commit (``Flight/wait(timeout:)``) rather than miss what its previous answer
/// stores, a part to complete included.
final class CommittingAnswers: Sendable {
    private let flights = Mutex<[CacheKey: Flight]>([:])

    /// Marks `key` as being committed; nil when another answer for it is being committed already
    /// (its end wakes the waiters).
    func begin(_ key: CacheKey) -> Flight? {
        self.flights.withLock { flights in
            guard flights[key] == nil else { return nil }
            let flight = Flight()
            flights[key] = flight
            return flight
        }
    }

    /// The commit `begin` marked has ended, stored or not: waiters look up again.
    func end(_ key: CacheKey, flight: Flight) {
        self.flights.withLock { flights in
            if flights[key] === flight {
                flights[key] = nil
            }
        }
        flight.complete(stored: true)
    }

    /// The commit under way for `key`, if any.
    func flight(for key: CacheKey) -> Flight? {
        self.flights.withLock { $0[key] }
    }
}
